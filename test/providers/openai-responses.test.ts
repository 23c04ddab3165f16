/**
 * kind = "openai-responses": a provider whose upstream speaks the OpenAI Responses API, resolved from config as
 * every provider is (retry and fallback wrapper included), against a fake upstream answering as OpenAI documents.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ConfigSchema } from "../../src/config/schema.ts";
import { isPrxError } from "../../src/core/errors.ts";
import { REASONING_CARRY_MAX_CALLS } from "../../src/providers/openai-responses.ts";
import { createProviderResolver } from "../../src/providers/resolver.ts";
import type { ChatMessage, StreamDelta, ToolSpec } from "../../src/providers/types.ts";
import { startFakeOpenAIResponses, type FakeServer } from "../fakes/openai-responses-server.ts";

let fake: FakeServer;
let sleeps: number[] = [];

beforeAll(() => {
  fake = startFakeOpenAIResponses({ models: ["fake-model", "fake-reasoner"] });
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.reset();
  sleeps = [];
});

function provider(extra: Record<string, unknown> = {}) {
  const config = ConfigSchema.parse({
    default_provider: "up",
    default_model: "fake-model",
    providers: { up: { kind: "openai-responses", base_url: fake.url, api_key_env: "UP_KEY", ...extra } },
    reliability: { retries: 1, backoff_ms: 10 },
  });
  const resolver = createProviderResolver(config, {
    env: { UP_KEY: "sk-test" },
    reliability: { sleep: async (ms) => void sleeps.push(ms), random: () => 0 },
  });
  return resolver.resolve("up");
}

const weather: ToolSpec = {
  name: "get_weather",
  description: "the weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } } },
};
const user = (content: string): ChatMessage[] => [{ role: "user", content }];
const lastBody = () => fake.chatRequests().at(-1)!.body;

describe("openai-responses provider", () => {
  test("a text answer: POST /responses with store: false and encrypted reasoning asked for; usage mapped", async () => {
    const answer = await provider().chat({ model: "fake-model", messages: [{ role: "system", content: "be kind" }, ...user("hi there")], maxTokens: 64 });
    expect(answer).toMatchObject({ text: "echo: hi there", toolCalls: [], model: "fake-model", provider: "up", finishReason: "stop" });
    expect(answer.usage!.total_tokens).toBe(answer.usage!.prompt_tokens + answer.usage!.completion_tokens);
    const sent = fake.chatRequests().at(-1)!;
    expect(sent.headers.authorization).toBe("Bearer sk-test");
    expect(sent.body).toMatchObject({
      model: "fake-model",
      store: false,
      include: ["reasoning.encrypted_content"],
      max_output_tokens: 64,
      input: [{ role: "system", content: "be kind" }, { role: "user", content: "hi there" }],
    });
    expect(sent.body.stream).toBeUndefined();
  });

  test("streamed: text deltas, then a tool call's name and argument pieces", async () => {
    const deltas: StreamDelta[] = [];
    const text = await provider().chat({ model: "fake-model", messages: user("stream this please"), onDelta: (d) => void deltas.push(d) });
    expect(text.text).toBe("echo: stream this please");
    expect(deltas.map((d) => (d.type === "text" ? d.text : "")).join("")).toBe("echo: stream this please");
    expect(lastBody().stream).toBe(true);

    deltas.length = 0;
    const called = await provider().chat({
      model: "fake-model",
      messages: user('use tool get_weather {"city":"Paris","unit":"celsius"}'),
      tools: [weather],
      onDelta: (d) => void deltas.push(d),
    });
    expect(called.toolCalls).toEqual([{ id: expect.stringMatching(/^call_/), name: "get_weather", arguments: '{"city":"Paris","unit":"celsius"}' }]);
    expect(called.finishReason).toBe("tool_calls");
    const pieces = deltas.filter((d) => d.type === "tool_call");
    expect(pieces[0]).toMatchObject({ index: 0, name: "get_weather", id: called.toolCalls[0]!.id });
    expect(pieces.map((d) => (d.type === "tool_call" ? (d.argumentsDelta ?? "") : "")).join("")).toBe('{"city":"Paris","unit":"celsius"}');
    expect(lastBody().tools).toEqual([{ type: "function", name: "get_weather", description: "the weather in a city", parameters: weather.parameters, strict: false }]);
  });

  test("a reasoning model's encrypted reasoning goes back before its tool call; the tool's output as function_call_output", async () => {
    const up = provider();
    const first = await up.chat({ model: "fake-reasoner", messages: user('use tool get_weather {"city":"Oslo"}'), tools: [weather] });
    const reasoning = fake.chatRequests().length;
    expect(reasoning).toBe(1);
    const call = first.toolCalls[0]!;
    const history: ChatMessage[] = [
      ...user('use tool get_weather {"city":"Oslo"}'),
      { role: "assistant", content: "", tool_calls: [call] },
      { role: "tool", content: "snow", tool_call_id: call.id, name: "get_weather" },
    ];
    const second = await up.chat({ model: "fake-reasoner", messages: history, tools: [weather] });
    expect(second.text).toBe("tool said: snow");
    const input = lastBody().input as Array<Record<string, unknown>>;
    expect(input.map((item) => item.type ?? item.role)).toEqual(["user", "reasoning", "function_call", "function_call_output"]);
    expect(input[1]!.encrypted_content).toMatch(/^enc-/);
    expect(input[2]).toEqual({ type: "function_call", call_id: call.id, name: "get_weather", arguments: '{"city":"Oslo"}' });
    expect(input[3]).toEqual({ type: "function_call_output", call_id: call.id, output: "snow" });
    expect(REASONING_CARRY_MAX_CALLS).toBeGreaterThan(0);
  });

  test("images go as input_image parts after the text", async () => {
    const data = Buffer.from("not really a png").toString("base64");
    await provider().chat({
      model: "fake-model",
      messages: [{ role: "user", content: "what is this", media: [{ kind: "image", mime: "image/png", data, detail: "low" }] }],
    });
    expect(lastBody().input).toEqual([
      { role: "user", content: [{ type: "input_text", text: "what is this" }, { type: "input_image", image_url: `data:image/png;base64,${data}`, detail: "low" }] },
    ]);
  });

  test("a 500 is retried by the reliability wrapper; a 400 is not", async () => {
    fake.enqueue({ type: "error", status: 500 });
    const answer = await provider().chat({ model: "fake-model", messages: user("again") });
    expect(answer.text).toBe("echo: again");
    expect(fake.chatRequests()).toHaveLength(2);
    expect(sleeps).toHaveLength(1);

    fake.reset();
    fake.enqueue({ type: "error", status: 400, message: "Invalid value for 'input'." });
    let caught: unknown;
    await provider().chat({ model: "fake-model", messages: user("bad") }).catch((error) => (caught = error));
    expect(isPrxError(caught, "PROVIDER_HTTP")).toBe(true);
    expect(String((caught as Error).message)).toContain("Invalid value for 'input'.");
    expect(fake.chatRequests()).toHaveLength(1);
  });

  test("an error event mid-stream fails the call with the provider's message", async () => {
    fake.enqueue({ type: "stream_error", textBefore: "half an ans" });
    fake.enqueue({ type: "stream_error", textBefore: "half an ans" });
    let caught: unknown;
    await provider()
      .chat({ model: "fake-model", messages: user("x"), onDelta: () => {} })
      .catch((error) => (caught = error));
    expect(isPrxError(caught, "PROVIDER_HTTP")).toBe(true);
    expect((caught as Error).message).toContain("The server had an error");
  });

  test("the model list is the upstream's GET /models (probe and listModels)", async () => {
    const up = createProviderResolver(
      ConfigSchema.parse({ default_provider: "up", default_model: "fake-model", providers: { up: { kind: "openai-responses", base_url: fake.url } } }),
    ).resolve("up");
    expect(await up.probe!()).toBeNull();
  });
});
