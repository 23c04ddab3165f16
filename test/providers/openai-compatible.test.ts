import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { PrxError } from "../../src/core/errors.ts";
import { OpenAICompatibleProvider, toOpenAITools, toolsJson } from "../../src/providers/openai-compatible.ts";
import { withReliability } from "../../src/providers/reliability.ts";
import type { ChatMessage, StreamDelta, ToolSpec } from "../../src/providers/types.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/index.ts";
import { schemasLoadReport, SCHEMAS_LOADED_WITH_THE_TOOL_CALL } from "./schemas-unloaded.ts";

let fake: FakeServer;
beforeAll(() => {
  fake = startFakeOpenAI();
});
afterAll(() => fake.stop());
afterEach(() => fake.reset());

const env = { FAKE_KEY: "sk-test" };
function provider(extra: Partial<ConstructorParameters<typeof OpenAICompatibleProvider>[0]> = {}) {
  return new OpenAICompatibleProvider({ name: "openai", baseUrl: fake.url, keyEnv: "FAKE_KEY", env, ...extra });
}
const user = (content: string): ChatMessage => ({ role: "user", content });
const memoryTool: ToolSpec = {
  name: "memory_store",
  description: "store a memory",
  parameters: { type: "object", properties: { key: { type: "string" }, content: { type: "string" } } },
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

/** Retry wrapper whose sleeps are recorded instead of waited. */
function reliable(retries = 2) {
  const sleeps: number[] = [];
  const wrapped = withReliability(provider(), [], {
    retries,
    backoff_ms: 10,
    max_backoff_ms: 100,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0,
  });
  return { wrapped, sleeps };
}

describe("OpenAICompatibleProvider", () => {
  test("non-streaming answer, request shape and usage", async () => {
    const system: ChatMessage = { role: "system", content: "be brief" };
    const result = await provider().chat({ model: "gpt-test", messages: [system, user("hi there")], temperature: 0.2 });
    expect(result.text).toBe("echo: hi there");
    expect(result.provider).toBe("openai");
    expect(result.model).toBe("gpt-test");
    expect(result.finishReason).toBe("stop");
    expect(result.usage!.total_tokens).toBe(result.usage!.prompt_tokens + result.usage!.completion_tokens);
    const [request] = fake.chatRequests();
    expect(request!.headers.authorization).toBe("Bearer sk-test");
    expect(request!.body).toEqual({
      model: "gpt-test",
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hi there" },
      ],
      temperature: 0.2,
    });
  });

  test("streaming text with include_usage", async () => {
    const deltas: StreamDelta[] = [];
    const result = await provider().chat({
      model: "m",
      messages: [user("stream me please")],
      onDelta: (delta) => deltas.push(delta),
    });
    expect(result.text).toBe("echo: stream me please");
    // the pieces of one read of the stream come as one delta (delta-joining.test.ts): how many depends on the reads
    expect(deltas.every((d) => d.type === "text")).toBe(true);
    expect(deltas.map((d) => (d.type === "text" ? d.text : "")).join("")).toBe(result.text);
    expect(result.usage!.completion_tokens).toBeGreaterThan(0);
    expect(fake.chatRequests()[0]!.body.stream_options).toEqual({ include_usage: true });
  });

  test("streamed tool calls are accumulated by index, then the tool result round-trips", async () => {
    const deltas: StreamDelta[] = [];
    const args = '{"key":"colour","content":"blue"}';
    const messages = [user(`use tool memory_store ${args}`)];
    const first = await provider().chat({ model: "m", messages, tools: [memoryTool], onDelta: (d) => deltas.push(d) });
    expect(first.finishReason).toBe("tool_calls");
    expect(first.toolCalls).toHaveLength(1);
    expect(first.toolCalls[0]!.name).toBe("memory_store");
    expect(JSON.parse(first.toolCalls[0]!.arguments)).toEqual({ key: "colour", content: "blue" });
    const argDeltas = deltas.filter((d) => d.type === "tool_call" && d.argumentsDelta);
    expect(argDeltas.length).toBeGreaterThan(1);
    const sent = fake.chatRequests()[0]!.body;
    expect(sent.tools[0]).toEqual({ type: "function", function: { ...memoryTool } });

    const history: ChatMessage[] = [
      ...messages,
      { role: "assistant", content: "", tool_calls: first.toolCalls },
      { role: "tool", content: "stored", tool_call_id: first.toolCalls[0]!.id, name: "memory_store" },
    ];
    const second = await provider().chat({ model: "m", messages: history, tools: [memoryTool] });
    expect(second.text).toBe("tool said: stored");
    const mapped = fake.chatRequests()[1]!.body.messages;
    expect(mapped[1]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: first.toolCalls[0]!.id, type: "function", function: { name: "memory_store", arguments: args } },
      ],
    });
    expect(mapped[2]).toEqual({ role: "tool", tool_call_id: first.toolCalls[0]!.id, content: "stored" });
  });

  test("UTF-8 split across stream chunks arrives intact", async () => {
    fake.enqueue({ type: "text", text: "héllo 🌍 wörld", byteChunkSize: 3 });
    const deltas: string[] = [];
    const result = await provider().chat({
      model: "m",
      messages: [user("x")],
      onDelta: (d) => void (d.type === "text" && deltas.push(d.text)),
    });
    expect(result.text).toBe("héllo 🌍 wörld");
    expect(deltas.join("")).toBe("héllo 🌍 wörld");
  });

  test("429 is retried after the Retry-After delay", async () => {
    fake.enqueue({ type: "error", status: 429, retryAfter: 2 });
    const { wrapped, sleeps } = reliable();
    const result = await wrapped.chat({ model: "m", messages: [user("again")] });
    expect(result.text).toBe("echo: again");
    expect(sleeps).toEqual([2000]);
    expect(fake.chatRequests()).toHaveLength(2);
  });

  test("500 then success: one backoff, two requests", async () => {
    fake.enqueue({ type: "error", status: 500 });
    const { wrapped, sleeps } = reliable();
    expect((await wrapped.chat({ model: "m", messages: [user("ok")] })).text).toBe("echo: ok");
    expect(sleeps).toEqual([10]);
    expect(fake.chatRequests()).toHaveLength(2);
  });

  test("401 is not retried and names the key variable", async () => {
    fake.enqueue({ type: "error", status: 401 });
    const { wrapped, sleeps } = reliable();
    const error = await caught(() => wrapped.chat({ model: "m", messages: [user("x")] }));
    expect(error.code).toBe("PROVIDER_HTTP");
    expect(error.details).toEqual({ status: 401, provider: "openai" });
    expect(error.message).toContain("Incorrect API key");
    expect(error.hint).toBe("check the key in $FAKE_KEY");
    expect(sleeps).toEqual([]);
    expect(fake.chatRequests()).toHaveLength(1);
  });

  test("abort before the answer cancels the request", async () => {
    fake.enqueue({ type: "hang" });
    const controller = new AbortController();
    const pending = provider().chat({ model: "m", messages: [user("x")], signal: controller.signal });
    while (fake.chatRequests().length === 0) await Bun.sleep(2);
    controller.abort();
    expect((await caught(() => pending)).code).toBe("ABORTED");
  });

  test("abort mid-stream stops reading and is not retried", async () => {
    fake.enqueue({ type: "text", text: "one two three four five six seven eight", chunkDelayMs: 30 });
    const controller = new AbortController();
    const { wrapped, sleeps } = reliable();
    const seen: StreamDelta[] = [];
    const error = await caught(() =>
      wrapped.chat({
        model: "m",
        messages: [user("x")],
        signal: controller.signal,
        onDelta: (delta) => {
          seen.push(delta);
          controller.abort();
        },
      }),
    );
    expect(error.code).toBe("ABORTED");
    expect(seen.length).toBeLessThan(4);
    expect(sleeps).toEqual([]);
    expect(fake.chatRequests()).toHaveLength(1);
  });

  test("per-request timeout", async () => {
    fake.enqueue({ type: "hang" });
    const error = await caught(() => provider({ timeoutMs: 100 }).chat({ model: "m", messages: [user("x")] }));
    expect(error.code).toBe("PROVIDER_TIMEOUT");
    expect(error.message).toContain("100 ms");
  });

  test("a text answer, whole or streamed, is read without the wire schemas; a tool call loads them", async () => {
    const { report, stderr, code } = await schemasLoadReport({ provider: { path: "../../src/providers/openai-compatible.ts", className: "OpenAICompatibleProvider", loaded: "loadedOpenaiWire" }, fake: "startFakeOpenAI", streamTool: true });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(report).toEqual(SCHEMAS_LOADED_WITH_THE_TOOL_CALL);
  });

  test("malformed stream chunk and malformed JSON body are protocol errors", async () => {
    fake.enqueue({ type: "malformed" }, { type: "malformed" });
    const streamed = await caught(() => provider().chat({ model: "m", messages: [user("x")], onDelta: () => {} }));
    expect(streamed.code).toBe("PROVIDER_PROTOCOL");
    expect(streamed.message).toContain("openai");
    const whole = await caught(() => provider().chat({ model: "m", messages: [user("x")] }));
    expect(whole.code).toBe("PROVIDER_PROTOCOL");
  });

  test("response size cap, streamed and not", async () => {
    fake.enqueue({ type: "huge", bytes: 4096 }, { type: "huge", bytes: 4096 });
    const small = provider({ maxResponseBytes: 2048 });
    const streamed = await caught(() => small.chat({ model: "m", messages: [user("x")], onDelta: () => {} }));
    expect(streamed.code).toBe("PROVIDER_RESPONSE_TOO_LARGE");
    expect((await caught(() => small.chat({ model: "m", messages: [user("x")] }))).code).toBe(
      "PROVIDER_RESPONSE_TOO_LARGE",
    );
  });

  test("error inside a 200 stream", async () => {
    fake.enqueue({ type: "stream_error", message: "upstream exploded", textBefore: "partial " });
    const error = await caught(() => provider().chat({ model: "m", messages: [user("x")], onDelta: () => {} }));
    expect(error.code).toBe("PROVIDER_HTTP");
    expect(error.message).toContain("upstream exploded");
  });

  test("a missing key variable fails before any request", async () => {
    const error = await caught(() => provider({ env: {} }).chat({ model: "m", messages: [user("x")] }));
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toContain("FAKE_KEY");
    expect(fake.requests).toHaveLength(0);
  });

  test("listModels and probe", async () => {
    expect(await provider().listModels()).toEqual(["fake-model"]);
    expect(await provider({ models: ["a", "b"] }).listModels()).toEqual(["a", "b"]);
    expect(await provider().probe()).toBeNull();
    const failing = provider({ fetch: async () => new Response("down", { status: 503 }) });
    expect(await failing.probe()).toContain("unreachable");
    const nowhere = provider({ baseUrl: "http://127.0.0.1:9/v1" });
    expect(await nowhere.probe()).toContain("unreachable");
  });
});

describe("probe against a server that checks the key", () => {
  test("401 means reachable but key rejected", async () => {
    const guarded = startFakeOpenAI({ apiKey: "right" });
    try {
      const withKey = (key: string) =>
        new OpenAICompatibleProvider({ name: "openai", baseUrl: guarded.url, keyEnv: "K", env: { K: key } });
      const wrong = withKey("wrong");
      const message = await wrong.probe();
      expect(message).toContain("key rejected");
      expect(message).toContain("$K");
      expect(await withKey("right").probe()).toBeNull();
    } finally {
      await guarded.stop();
    }
  });
});

describe("toolsJson", () => {
  test("is JSON.stringify(toOpenAITools(list)), for a fresh list and for the same list again", () => {
    const a: ToolSpec = { name: "a", description: "first", parameters: { type: "object", properties: {} } };
    const b: ToolSpec = { name: "b", description: 'quote " and \\ slash', parameters: { type: "object" } };
    const list = [a, b];
    const expected = JSON.stringify(toOpenAITools(list));
    expect(toolsJson(list)).toBe(expected);
    expect(toolsJson(list)).toBe(expected);
    expect(toolsJson([b, a])).toBe(JSON.stringify(toOpenAITools([b, a])));
    expect(toolsJson([])).toBe("[]");
  });
});
