/** The gateway shows a middleware block like any reply: the session API (JSON and SSE) and the OpenAI-compatible API. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildGateway } from "../../../src/gateway/app.ts";
import { AuthService } from "../../../src/gateway/auth/service.ts";
import type { FakeServer } from "../../fakes/index.ts";
import { startFakeOpenAI } from "../../fakes/index.ts";
import { pdk, writeGatePlugin } from "../../fixtures/gate-middleware.ts";
import { captureLogs, fakeConfig, openHost, workspaceWith, type OpenedHost, type TestWorkspace } from "../capabilities/helpers.ts";
import { sqliteStorageOf } from "../../helpers/host-db.ts";

let fake: FakeServer;
let ws: TestWorkspace;
let opened: OpenedHost;
let call: (path: string, body: unknown, headers?: Record<string, string>) => Promise<Response>;
beforeAll(async () => {
  captureLogs();
  fake = startFakeOpenAI();
  ws = workspaceWith([], fakeConfig(fake.url));
  await writeGatePlugin(ws.pluginsDir, {
    name: "limiter",
    rules: [
      { stage: "inbound", when: "#limited", reply: { err: pdk.block("Rate limit exceeded. Try again later.") } },
      { stage: "inbound", when: '"user_id":"spammer"', reply: { err: pdk.block("You are sending too fast.") } },
    ],
  });
  opened = await openHost(ws.root);
  const auth = new AuthService({ tokens: sqliteStorageOf(opened.host).tokens, pairingCodes: sqliteStorageOf(opened.host).gatewayPairing, required: false, pairingCodeTtlMs: 60_000, now: Date.now });
  const { app } = buildGateway({ host: opened.host, auth, version: "test", startedAt: Date.now() });
  call = (path, body, headers = {}) =>
    app.handle(
      new Request(`http://local${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      }),
    );
});
afterAll(async () => {
  await opened.host.close();
  await fake.stop();
  ws.cleanup();
});

describe("a blocked turn through the gateway", () => {
  test("POST /api/sessions/:id/message answers the reason as the reply, and the session keeps the exchange", async () => {
    const requests = fake.chatRequests().length;
    const res = await call("/api/sessions/gw-1/message", { message: "#limited hello" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { reply: string }).reply).toBe("Rate limit exceeded. Try again later.");
    expect(fake.chatRequests().length).toBe(requests);
    expect((await opened.host.sessions.messages("gw-1")).map((m) => m.content)).toEqual([
      "#limited hello",
      "Rate limit exceeded. Try again later.",
    ]);
  });

  test("the SSE stream delivers the reason as a delta, then done", async () => {
    const res = await call("/api/sessions/gw-2/message", { message: "#limited again" }, { accept: "text/event-stream" });
    const text = await res.text();
    expect(text).toContain('event: delta\ndata: {"text":"Rate limit exceeded. Try again later."}');
    expect(text).toContain("event: done");
    expect(text).not.toContain("event: error");
  });

  test("the OpenAI API answers the reason as the assistant's content; its `user` is the inbound user_id", async () => {
    const res = await call("/v1/chat/completions", {
      model: "fake-model",
      user: "spammer",
      messages: [{ role: "user", content: "hello" }],
    });
    expect(res.status).toBe(200);
    const completion = (await res.json()) as { choices: { message: { content: string }; finish_reason: string }[] };
    expect(completion.choices[0]!.message.content).toBe("You are sending too fast.");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
  });
});
