/**
 * POST /v1/messages and /v1/messages/count_tokens on a listening gateway (in process) with the fake OpenAI server
 * upstream: the limits at their boundaries, Anthropic's error shapes and statuses, how the conversation reaches the
 * provider, and the x-api-key header.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../src/agent/index.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import {
  ANTHROPIC_MAX_MESSAGES,
  ANTHROPIC_MAX_STOP_SEQUENCES,
  ANTHROPIC_MAX_TOOLS,
  ANTHROPIC_STOP_SEQUENCE_MAX_CHARS,
} from "../../src/gateway/limits.ts";
import { startGateway, type GatewayServer } from "../../src/gateway/server.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";

const MAX_BODY = 1024 * 1024;
let fake: FakeServer;
let host: AgentHost;
let gateway: GatewayServer;
let token: string;
let dir: string;

beforeAll(async () => {
  fake = startFakeOpenAI();
  dir = mkdtempSync(join(tmpdir(), "prx-gw-messages-"));
  const config = ConfigSchema.parse({
    default_provider: "fake",
    default_model: "fake-model",
    providers: { fake: { base_url: fake.url, models: ["fake-model"] } },
    reliability: { retries: 0 },
    memory: { auto_recall: false },
    gateway: { max_body_bytes: MAX_BODY },
  });
  host = await openAgentHost({ workspace: dir, config });
  gateway = await startGateway({ host, port: 0, handleSignals: false, version: "test", print: () => {}, accessLog: () => {} });
  token = (await gateway.context.auth.tokens.create("messages")).token;
});

afterAll(async () => {
  await gateway.stop();
  await host.close();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

type Json = Record<string, any>;
async function post(path: string, body: unknown, headers: Record<string, string> = { "x-api-key": token }): Promise<{ status: number; body: Json; headers: Headers }> {
  const response = await fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Json, headers: response.headers };
}
const message = (extra: Json = {}) => ({ model: "fake-model", max_tokens: 16, messages: [{ role: "user", content: "hi" }], ...extra });
const tool = (name: string) => ({ name, input_schema: { type: "object", properties: {} } });
const lastSent = () => fake.chatRequests().at(-1)!.body as { messages: Json[]; tools?: Json[] };

describe("limits at their boundaries", () => {
  test(`tools: ${ANTHROPIC_MAX_TOOLS} pass, one more is a 400`, async () => {
    const tools = Array.from({ length: ANTHROPIC_MAX_TOOLS + 1 }, (_, i) => tool(`t${i}`));
    expect((await post("/v1/messages", message({ tools: tools.slice(0, -1) }))).status).toBe(200);
    const over = await post("/v1/messages", message({ tools }));
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    expect(over.body.error.message).toContain("tools");
  });

  test(`stop_sequences: ${ANTHROPIC_MAX_STOP_SEQUENCES} of ${ANTHROPIC_STOP_SEQUENCE_MAX_CHARS} characters pass, one more of either fails`, async () => {
    const long = "x".repeat(ANTHROPIC_STOP_SEQUENCE_MAX_CHARS);
    const many = Array.from({ length: ANTHROPIC_MAX_STOP_SEQUENCES }, (_, i) => `${long.slice(1)}${i % 10}`);
    expect((await post("/v1/messages", message({ stop_sequences: many }))).status).toBe(200);
    expect((await post("/v1/messages", message({ stop_sequences: [...many, "y"] }))).status).toBe(400);
    expect((await post("/v1/messages", message({ stop_sequences: [`${long}x`] }))).status).toBe(400);
  });

  test(`messages: ${ANTHROPIC_MAX_MESSAGES} pass (counted), one more is a 400`, async () => {
    const messages = Array.from({ length: ANTHROPIC_MAX_MESSAGES + 1 }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: "m" }));
    const within = await post("/v1/messages/count_tokens", { model: "fake-model", messages: messages.slice(0, -2).concat([messages.at(-1)!]) });
    expect(within.status).toBe(200);
    expect((await post("/v1/messages/count_tokens", { model: "fake-model", messages })).status).toBe(400);
  });
});

describe("Anthropic's errors", () => {
  test("max_tokens is required", async () => {
    const { status, body } = await post("/v1/messages", { model: "fake-model", messages: [{ role: "user", content: "hi" }] });
    expect(status).toBe(400);
    expect(body.error.message).toContain("max_tokens");
    expect(body.request_id).toBeString();
  });

  test("no token: 401 authentication_error; a wrong one too", async () => {
    expect((await post("/v1/messages", message(), {})).body).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    const wrong = await post("/v1/messages", message(), { "x-api-key": "prx_wrong" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.type).toBe("authentication_error");
  });

  test("a body over gateway.max_body_bytes: 413 request_too_large", async () => {
    const big = await post("/v1/messages", message({ messages: [{ role: "user", content: "x".repeat(MAX_BODY) }] }));
    expect(big.status).toBe(413);
    expect(big.body.error.type).toBe("request_too_large");
  });

  test("an unknown model: 404 not_found_error; malformed JSON: 400", async () => {
    const missing = await post("/v1/messages", message({ model: "claude-unknown" }));
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: "not_found_error" });
    expect(missing.body.error.message).toContain("claude-unknown");
    expect((await post("/v1/messages", "{nope")).body.error.type).toBe("invalid_request_error");
  });

  test("the provider failing: 500 api_error (Anthropic answers no 502)", async () => {
    fake.enqueue({ type: "error", status: 500 });
    const failed = await post("/v1/messages", message());
    expect(failed.status).toBe(500);
    expect(failed.body.error.type).toBe("api_error");
  });

  test("a tool_result answering no tool_use, and a tool_use left unanswered, are 400s naming the message", async () => {
    const orphan = await post("/v1/messages", message({ messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "r" }] }] }));
    expect(orphan.status).toBe(400);
    expect(orphan.body.error.message).toContain("messages.0.content: unexpected tool_use_id found in tool_result blocks: toolu_x");
    const open = await post(
      "/v1/messages",
      message({
        tools: [tool("t")],
        messages: [
          { role: "user", content: "a" },
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "t", input: {} }] },
          { role: "user", content: "b" },
        ],
      }),
    );
    expect(open.status).toBe(400);
    expect(open.body.error.message).toContain("toolu_1");
  });

  test("a prefilled assistant message last, a server tool, tool_choice any: 400s saying what to send", async () => {
    const prefill = await post("/v1/messages", message({ messages: [{ role: "user", content: "a" }, { role: "assistant", content: "b" }] }));
    expect(prefill.body.error.message).toContain('the last message must have role "user"');
    const server = await post("/v1/messages", message({ tools: [{ type: "web_search_20250305", name: "web_search" }] }));
    expect(server.status).toBe(400);
    const forced = await post("/v1/messages", message({ tools: [tool("t")], tool_choice: { type: "tool", name: "t" } }));
    expect(forced.body.error.message).toContain('tool_choice type "tool" is not supported');
  });
});

describe("the conversation as the provider gets it", () => {
  test("system (blocks), mid-conversation system messages, thinking blocks left out, tool_result with is_error", async () => {
    const answer = await post(
      "/v1/messages",
      message({
        system: [{ type: "text", text: "sys one", cache_control: { type: "ephemeral" } }, { type: "text", text: "sys two" }],
        tools: [tool("t")],
        thinking: { type: "enabled", budget_tokens: 1024 },
        messages: [
          { role: "user", content: "first" },
          { role: "system", content: "mid system" },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "hmm", signature: "sig" },
              { type: "text", text: "calling" },
              { type: "tool_use", id: "toolu_9", name: "t", input: { a: 1 } },
            ],
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", is_error: true, content: [{ type: "text", text: "boom" }] }] },
        ],
      }),
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ content: [{ type: "text", text: "tool said: Error: boom" }], stop_reason: "end_turn" });
    const sent = lastSent().messages;
    expect(sent.filter((m) => m.role === "system").map((m) => m.content)).toEqual([expect.any(String), "sys one\nsys two", "mid system"]);
    expect(sent.at(-2)).toMatchObject({ role: "assistant", content: "calling", tool_calls: [{ id: "toolu_9", function: { name: "t", arguments: '{"a":1}' } }] });
    expect(sent.at(-1)).toMatchObject({ role: "tool", tool_call_id: "toolu_9", content: "Error: boom" });
  });

  test("tool_choice none offers no tool; metadata.user_id and unknown fields are accepted", async () => {
    const answer = await post("/v1/messages", message({ tools: [tool("t")], tool_choice: { type: "none" }, metadata: { user_id: "u1" }, service_tier: "auto" }));
    expect(answer.status).toBe(200);
    expect(lastSent().tools).toBeUndefined();
  });

  test("Authorization: Bearer wins over x-api-key when both are sent", async () => {
    const answer = await post("/v1/messages", message(), { authorization: `Bearer ${token}`, "x-api-key": "not-a-token" });
    expect(answer.status).toBe(200);
  });

  test("count_tokens grows with what is sent and checks the model", async () => {
    const small = await post("/v1/messages/count_tokens", { model: "fake-model", messages: [{ role: "user", content: "hi" }] });
    const big = await post("/v1/messages/count_tokens", { model: "fake-model", messages: [{ role: "user", content: "hi ".repeat(400) }] });
    // one token per 4 bytes: "hi" is 1, 400 × "hi " is 300
    expect(big.body.input_tokens - small.body.input_tokens).toBe(299);
    expect((await post("/v1/messages/count_tokens", { model: "nope", messages: [{ role: "user", content: "hi" }] })).status).toBe(404);
  });
});

describe("the API reference", () => {
  test("documents the new routes from their schemas, with Anthropic's error body", async () => {
    const document = (await (await fetch(`${gateway.url}/swagger/json`)).json()) as Json;
    const messages = document.paths["/v1/messages"].post;
    expect(messages.requestBody.content["application/json"].schema.required).toEqual(expect.arrayContaining(["model", "messages", "max_tokens"]));
    expect(messages.responses["200"].content["application/json"].schema.properties.stop_reason.enum).toContain("tool_use");
    expect(messages.responses["400"].content["application/json"].schema.properties.type.enum).toEqual(["error"]);
    expect(messages.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "x-api-key" });
    expect(document.paths["/v1/messages/count_tokens"].post.responses["200"]).toBeDefined();
    expect(document.paths["/v1/embeddings"].post.requestBody.content["application/json"].schema.properties.encoding_format.enum).toEqual(["float", "base64"]);
    expect(document.paths["/v1/completions"].post.responses["404"]).toBeDefined();
  });
});
