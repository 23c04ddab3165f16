/**
 * Where the OpenAI-compatible API is strict: an unknown model is OpenAI's own 404 (unless [gateway] model_aliases maps
 * it), a wrong method is 405 with Allow, a body that is not JSON is 415 with its own code. A listening gateway.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { startGateway, type GatewayServer } from "../../src/gateway/server.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { json } from "./harness.ts";

let fake: FakeServer;
let host: AgentHost;
let gateway: GatewayServer;
let token: string;
let dir: string;

beforeAll(async () => {
  fake = startFakeOpenAI();
  dir = mkdtempSync(join(tmpdir(), "prx-gw-strict-"));
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    providers: { fake: { base_url: fake.url, models: ["fake-model", "fake-big"] } },
    reliability: { retries: 0 },
    gateway: { model_aliases: { "gpt-4o": "fake-big" } },
  });
  host = await openAgentHost({ workspace: dir, config });
  gateway = await startGateway({ host, port: 0, handleSignals: false, version: "test", print: () => {}, accessLog: () => {} });
  token = (await gateway.context.auth.tokens.create("strict")).token;
});

afterAll(async () => {
  await gateway.stop();
  await host.close();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

const call = (path: string, init: RequestInit = {}) =>
  fetch(`${gateway.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
const completion = (model: string, extra: Record<string, unknown> = {}) =>
  call("/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }], ...extra }),
  });

describe("model names", () => {
  test("an unknown model is a 404 model_not_found, word for word as OpenAI answers it", async () => {
    for (const stream of [false, true]) {
      const response = await completion("gpt-5", { stream });
      expect(response.status).toBe(404);
      expect(await json(response)).toEqual({
        error: {
          message: "The model `gpt-5` does not exist or you do not have access to it.",
          type: "invalid_request_error",
          param: null,
          code: "model_not_found",
        },
      });
    }
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: token, maxRetries: 0 });
    const error = await client.chat.completions
      .create({ model: "gpt-5", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error).toMatchObject({ status: 404, code: "model_not_found", type: "invalid_request_error", param: null });
  });

  test("an alias answers with its target, which is what the provider is asked for; /v1/models lists it", async () => {
    const response = await completion("gpt-4o");
    expect(response.status).toBe(200);
    expect((await json(response)).model).toBe("fake-big");
    expect(fake.chatRequests().at(-1)!.body.model).toBe("fake-big");
    const models = await json(call("/v1/models"));
    expect(models.data.map((m: { id: string }) => m.id)).toEqual(["fake-model", "fake-big", "gpt-4o"]);
  });

  test("a gateway whose alias names no served model does not start", async () => {
    const bad = ConfigSchema.parse({ ...host.config, gateway: { model_aliases: { "gpt-4o": "nowhere" } } });
    const otherDir = mkdtempSync(join(tmpdir(), "prx-gw-alias-"));
    const other = await openAgentHost({ workspace: otherDir, config: bad });
    try {
      const error = await startGateway({ host: other, port: 0, handleSignals: false, print: () => {} }).catch((e) => e);
      expect(error).toMatchObject({ code: "CONFIG_INVALID", message: expect.stringContaining('"nowhere" is not a model') });
    } finally {
      await other.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});

describe("methods and media types", () => {
  test("a wrong method is 405 with Allow, on native and Elysia routes alike", async () => {
    const cases: Array<[string, string, string]> = [
      ["GET", "/v1/chat/completions", "POST"],
      ["POST", "/v1/models", "GET"],
      ["POST", "/health", "GET"],
      ["DELETE", "/api/sessions", "GET"],
      ["PUT", "/api/sessions/abc/message", "POST"],
    ];
    for (const [method, path, allow] of cases) {
      const response = await call(path, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe(allow);
      const error = (await json(response)).error;
      expect(error.code).toBe("METHOD_NOT_ALLOWED");
      expect(error.message).toBe(`${method} is not allowed on ${path}; it answers ${allow}`);
    }
    // A path no route has is still a 404.
    expect((await call("/v1/nothing", { method: "POST" })).status).toBe(404);
  });

  test("a body that is not JSON is 415 UNSUPPORTED_MEDIA_TYPE (OpenAI-shaped under /v1/)", async () => {
    const body = JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: "hi" }] });
    const openai = await call("/v1/chat/completions", { method: "POST", headers: { "content-type": "text/plain" }, body });
    expect(openai.status).toBe(415);
    expect((await json(openai)).error).toMatchObject({
      code: "UNSUPPORTED_MEDIA_TYPE",
      type: "invalid_request_error",
      param: null,
      message: 'unsupported content type "text/plain"; send application/json',
    });
    const own = await call("/api/sessions/m/message", { method: "POST", headers: { "content-type": "text/plain" }, body: "x" });
    expect(own.status).toBe(415);
    expect((await json(own)).error).toEqual({
      code: "UNSUPPORTED_MEDIA_TYPE",
      message: 'unsupported content type "text/plain"; send application/json',
      hint: "set the header Content-Type: application/json",
    });
  });
});
