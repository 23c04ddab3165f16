/** Remote plugins behind the gateway: /plugins/<name>/... routes with auth, /api/plugins, turns over JSON and SSE. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AnyElysia } from "elysia";
import type { AgentHost } from "../../../src/agent/index.ts";
import { REMOTE_MAX_MESSAGE_BYTES } from "../../../src/plugins/remote/index.ts";
import { startFakeOpenAI, type FakeServer } from "../../fakes/index.ts";
import { readSse } from "../../gateway/harness.ts";
import { EXAMPLE_DIR, gatewayOver, type TestWorkspace, quietLogs } from "./helpers.ts";

quietLogs();

let fake: FakeServer;
let ws: TestWorkspace;
let host: AgentHost;
let app: AnyElysia;
let token: string;

beforeAll(async () => {
  fake = startFakeOpenAI();
  ({ ws, host, app, token } = await gatewayOver([EXAMPLE_DIR], fake.url));
});
afterAll(async () => {
  await host?.close();
  ws?.cleanup();
  await fake?.stop();
});

/** A JSON response body, untyped for assertions. */
async function json(response: Response | Promise<Response>): Promise<any> {
  return (await response).json();
}

function call(path: string, init: RequestInit & { auth?: boolean } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.auth !== false) headers.set("authorization", `Bearer ${token}`);
  return app.handle(new Request(`http://localhost${path}`, { ...init, headers }));
}

describe("remote plugins on the gateway", () => {
  test("/plugins/<name>/... needs a bearer token", async () => {
    const denied = await call("/plugins/example-remote/notes", { auth: false });
    expect(denied.status).toBe(401);
    const ok = await call("/plugins/example-remote/notes");
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ notes: [], saved: null });
  });

  test("a route the plugin declares public answers without a token; a bad token on it is not needed either", async () => {
    const open = await call("/plugins/example-remote/health", { auth: false });
    expect(open.status).toBe(200);
    expect(await open.json()).toEqual({ ok: true });
    expect((await call("/plugins/example-remote/health")).status).toBe(200);
    // the same method on a path the plugin did not declare public still needs the token
    expect((await call("/plugins/example-remote/notes", { auth: false })).status).toBe(401);
    expect((await call("/plugins/nope/health", { auth: false })).status).toBe(404);
  });

  test("a turn's actionCallback reaches the SSE stream and the JSON reply; the route sees the note", async () => {
    const streamed = await call("/api/sessions/gw-sse/message", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ message: 'use tool REMEMBER_NOTE {"text":"call mom"}' }),
    });
    const events = await readSse(streamed);
    const messages = events.filter((e) => e.event === "message").map((e) => JSON.parse(e.data).text);
    expect(messages).toEqual(["Noted: call mom"]);
    const done = JSON.parse(events.find((e) => e.event === "done")!.data);
    expect(done.messages).toEqual(["Noted: call mom"]);
    // the callback arrives before the tool result
    const order = events.map((e) => e.event).filter((e) => e === "message" || e === "tool_result");
    expect(order).toEqual(["message", "tool_result"]);

    const reply = await call("/api/sessions/gw-json/message", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: 'use tool REMEMBER_NOTE {"text":"water plants"}' }),
    });
    expect(reply.status).toBe(200);
    expect((await json(reply)).messages).toEqual(["Noted: water plants"]);

    const notes = await json(call("/plugins/example-remote/notes?x=1"));
    expect(notes.notes.map((n: { text: string }) => n.text)).toEqual(["call mom", "water plants"]);
  });

  test("unknown plugins and unannounced routes answer 404; a body over the cap answers 413", async () => {
    const unknown = await call("/plugins/nope/notes");
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error.message).toContain('no loaded remote plugin named "nope"');
    const unrouted = await call("/plugins/example-remote/notes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(unrouted.status).toBe(404);
    expect((await json(unrouted)).error.message).toContain("has no route POST /notes");
    const huge = await call("/plugins/example-remote/notes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "x".repeat(REMOTE_MAX_MESSAGE_BYTES + 1),
    });
    expect(huge.status).toBe(413);
    const atLimit = await call("/plugins/example-remote/notes", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "x".repeat(REMOTE_MAX_MESSAGE_BYTES),
    });
    expect(atLimit.status).toBe(404);
  });

  test("GET /api/plugins shows the remote plugin with its worker status", async () => {
    const body = await json(call("/api/plugins"));
    const plugin = body.plugins.find((p: { name: string }) => p.name === "example-remote");
    expect(plugin.kind).toBe("remote");
    expect(plugin.status).toBe("active");
    expect(plugin.remote.state).toBe("ready");
    expect(plugin.remote.callbacks).toBe(2);
    expect(plugin.remote.surfaces.routes).toEqual(["GET /notes", "GET /health"]);
  });
});
