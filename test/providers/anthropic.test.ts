import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { PrxError } from "../../src/core/errors.ts";
import { AnthropicProvider, ANTHROPIC_DEFAULT_MAX_TOKENS } from "../../src/providers/anthropic.ts";
import { toAnthropicMessages } from "../../src/providers/anthropic-map.ts";
import type { ChatMessage, StreamDelta, ToolSpec } from "../../src/providers/types.ts";
import { startFakeAnthropic, type FakeServer } from "../fakes/index.ts";
import { schemasLoadReport, SCHEMAS_LOADED_WITH_THE_TOOL_CALL } from "./schemas-unloaded.ts";

let fake: FakeServer;
beforeAll(() => {
  fake = startFakeAnthropic({ apiKey: "ant-key" });
});
afterAll(() => fake.stop());
afterEach(() => fake.reset());

function provider(extra: Partial<ConstructorParameters<typeof AnthropicProvider>[0]> = {}) {
  const env = { ANT: "ant-key" };
  return new AnthropicProvider({ name: "anthropic", baseUrl: fake.url, keyEnv: "ANT", env, ...extra });
}
const user = (content: string): ChatMessage => ({ role: "user", content });
const weather: ToolSpec = {
  name: "get_weather",
  description: "weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

async function caught(run: () => Promise<unknown>): Promise<PrxError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof PrxError) return error;
    throw error;
  }
  throw new Error("expected a PrxError");
}

describe("AnthropicProvider", () => {
  test("non-streaming: headers, hoisted system prompt, default max_tokens, usage", async () => {
    const messages: ChatMessage[] = [{ role: "system", content: "be brief" }, user("hello")];
    const result = await provider().chat({ model: "claude-test", messages });
    expect(result.text).toBe("echo: hello");
    expect(result.finishReason).toBe("stop");
    expect(result.model).toBe("claude-test");
    expect(result.usage!.total_tokens).toBe(result.usage!.prompt_tokens + result.usage!.completion_tokens);
    const [request] = fake.chatRequests();
    expect(request!.headers["x-api-key"]).toBe("ant-key");
    expect(request!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request!.body).toEqual({
      model: "claude-test",
      max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
      system: "be brief",
      messages: [{ role: "user", content: "hello" }],
    });
  });

  test("config max_tokens is used when the request sets none", async () => {
    await provider({ maxTokens: 77 }).chat({ model: "c", messages: [user("x")] });
    expect(fake.chatRequests()[0]!.body.max_tokens).toBe(77);
  });

  test("streaming text, with UTF-8 split across chunks", async () => {
    fake.enqueue({ type: "text", text: "grüße 🌍 aus Köln", byteChunkSize: 5 });
    const deltas: StreamDelta[] = [];
    const result = await provider().chat({ model: "c", messages: [user("x")], onDelta: (d) => deltas.push(d) });
    expect(result.text).toBe("grüße 🌍 aus Köln");
    expect(deltas.map((d) => (d.type === "text" ? d.text : "")).join("")).toBe(result.text);
    expect(result.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(result.usage!.completion_tokens).toBeGreaterThan(1);
    expect(fake.chatRequests()[0]!.body.stream).toBe(true);
  });

  test("streamed tool_use, then the tool_result round-trips", async () => {
    const deltas: StreamDelta[] = [];
    const messages = [user('use tool get_weather {"city":"Paris"}')];
    const first = await provider().chat({ model: "c", messages, tools: [weather], onDelta: (d) => deltas.push(d) });
    expect(first.finishReason).toBe("tool_calls");
    expect(first.toolCalls).toHaveLength(1);
    expect(first.toolCalls[0]!.name).toBe("get_weather");
    expect(JSON.parse(first.toolCalls[0]!.arguments)).toEqual({ city: "Paris" });
    expect(deltas[0]).toEqual({ type: "tool_call", index: 0, id: first.toolCalls[0]!.id, name: "get_weather" });
    const args = deltas.flatMap((d) => (d.type === "tool_call" && d.argumentsDelta ? [d.argumentsDelta] : []));
    expect(args.join("")).toBe(first.toolCalls[0]!.arguments);
    expect(fake.chatRequests()[0]!.body.tools).toEqual([
      { name: "get_weather", description: "weather for a city", input_schema: weather.parameters },
    ]);

    const history: ChatMessage[] = [
      ...messages,
      { role: "assistant", content: "", tool_calls: first.toolCalls },
      { role: "tool", content: "sunny", tool_call_id: first.toolCalls[0]!.id },
    ];
    const second = await provider().chat({ model: "c", messages: history, tools: [weather] });
    expect(second.text).toBe("tool said: sunny");
  });

  test("consecutive tool results merge into one user message; tool_use blocks carry parsed input", () => {
    const calls = [
      { id: "t1", name: "a", arguments: '{"x":1}' },
      { id: "t2", name: "b", arguments: "" },
    ];
    const mapped = toAnthropicMessages([
      { role: "system", content: "s1" },
      user("go"),
      { role: "assistant", content: "calling", tool_calls: calls },
      { role: "tool", content: "r1", tool_call_id: "t1" },
      { role: "tool", content: "r2", tool_call_id: "t2" },
      { role: "system", content: "s2" },
    ]);
    expect(mapped.system).toBe("s1\n\ns2");
    expect(mapped.messages).toEqual([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "calling" },
          { type: "tool_use", id: "t1", name: "a", input: { x: 1 } },
          { type: "tool_use", id: "t2", name: "b", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "r1" },
          { type: "tool_result", tool_use_id: "t2", content: "r2" },
        ],
      },
    ]);
  });

  test("two tool calls in one answer, non-streaming", async () => {
    const calls = [
      { name: "a", arguments: { n: 1 } },
      { name: "b", arguments: { n: 2 } },
    ];
    fake.enqueue({ type: "tool_calls", calls });
    const result = await provider().chat({ model: "c", messages: [user("x")] });
    expect(result.toolCalls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
      ["a", { n: 1 }],
      ["b", { n: 2 }],
    ]);
  });

  test("a text answer, whole or streamed, is read without the wire schemas; a tool_use answer loads them", async () => {
    const { report, stderr, code } = await schemasLoadReport({ provider: { path: "../../src/providers/anthropic.ts", className: "AnthropicProvider", loaded: "loadedAnthropicWire" }, fake: "startFakeAnthropic", streamTool: false });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(report).toEqual(SCHEMAS_LOADED_WITH_THE_TOOL_CALL);
  });

  test("error event inside the stream becomes PROVIDER_HTTP with an equivalent status", async () => {
    fake.enqueue({ type: "stream_error", errorType: "overloaded_error", message: "Overloaded" });
    const error = await caught(() => provider().chat({ model: "c", messages: [user("x")], onDelta: () => {} }));
    expect(error.code).toBe("PROVIDER_HTTP");
    expect(error.details).toEqual({ status: 529, provider: "anthropic" });
  });

  test("malformed stream event is a protocol error", async () => {
    fake.enqueue({ type: "malformed" });
    const error = await caught(() => provider().chat({ model: "c", messages: [user("x")], onDelta: () => {} }));
    expect(error.code).toBe("PROVIDER_PROTOCOL");
  });

  test("wrong key: 401 with the Anthropic error message and the key hint; probe says key rejected", async () => {
    const wrong = provider({ env: { ANT: "nope" } });
    const error = await caught(() => wrong.chat({ model: "c", messages: [user("x")] }));
    expect(error.details).toEqual({ status: 401, provider: "anthropic" });
    expect(error.message).toContain("invalid x-api-key");
    expect(error.hint).toBe("check the key in $ANT");
    expect(await wrong.probe()).toContain("key rejected");
    expect(await provider().probe()).toBeNull();
  });

  test("base_url may end in /v1", async () => {
    const result = await provider({ baseUrl: `${fake.url}/v1/` }).chat({ model: "c", messages: [user("v1")] });
    expect(result.text).toBe("echo: v1");
  });
});
