/** A remote plugin's models on the gateway: `remote:<plugin>` is listed by GET /v1/models and serves chat completions. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AnyElysia } from "elysia";
import type { AgentHost } from "../../../src/agent/index.ts";
import { startFakeOpenAI, type FakeServer } from "../../fakes/index.ts";
import { ASSIST_DIR, gatewayOver, type TestWorkspace } from "./workspace.ts";

let fake: FakeServer;
let ws: TestWorkspace;
let host: AgentHost;
let app: AnyElysia;
let token: string;

beforeAll(async () => {
  fake = startFakeOpenAI();
  ({ ws, host, app, token } = await gatewayOver([ASSIST_DIR], fake.url));
});
afterAll(async () => {
  await host?.close();
  ws?.cleanup();
  await fake?.stop();
});

const call = (path: string, body?: unknown) =>
  app.handle(
    new Request(`http://localhost${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );

describe("remote:<plugin> on the OpenAI API", () => {
  test("listed by GET /v1/models once the plugin is loaded, and answering chat completions", async () => {
    await host.loadExtensions();
    const models = (await (await call("/v1/models")).json()) as { data: Array<{ id: string; owned_by: string }> };
    expect(models.data).toContainEqual(expect.objectContaining({ id: "remote:assist-remote", owned_by: "plugin" }));
    const response = await call("/v1/chat/completions", { model: "remote:assist-remote", messages: [{ role: "user", content: "hello plugin" }] });
    expect(response.status).toBe(200);
    const completion = (await response.json()) as { model: string; choices: Array<{ message: { content: string } }> };
    expect(completion.model).toBe("remote:assist-remote");
    expect(completion.choices[0]!.message.content).toBe("model v1: hello plugin");
  });

  test("a plugin provider no plugin serves is refused naming what is served", async () => {
    const response = await call("/v1/chat/completions", { model: "remote:nobody", messages: [{ role: "user", content: "hi" }] });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(await response.json())).toContain("remote:assist-remote");
  });
});
