import { describe, expect, test } from "bun:test";
import { PrxError } from "../../src/core/errors.ts";
import { AnthropicProvider } from "../../src/providers/anthropic.ts";
import { OpenAICompatibleProvider } from "../../src/providers/openai-compatible.ts";
import { OpenAIResponsesProvider } from "../../src/providers/openai-responses.ts";
import type { StreamDelta } from "../../src/providers/types.ts";

/**
 * A provider's stream read by read: each `send` is one read of the response body. The deltas the provider hands on
 * are recorded, and `handedOn(n)` waits until there are n of them, so a test sends the next read only after the
 * provider has dealt with the one before.
 */
function scriptedStream() {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  const deltas: StreamDelta[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  return {
    deltas,
    fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }),
    onDelta(delta: StreamDelta) {
      deltas.push(delta);
      for (const waiter of waiters.filter((w) => deltas.length >= w.count)) waiter.resolve();
    },
    send: (...events: string[]) => controller.enqueue(encoder.encode(events.join(""))),
    end: () => controller.close(),
    handedOn: (count: number) =>
      deltas.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve })),
  };
}

const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
const named = (name: string, value: object) => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...value })}\n\n`;

const openaiChunk = (delta: object, finish: string | null = null) =>
  data({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] });

const options = (stream: ReturnType<typeof scriptedStream>) => ({ name: "p", baseUrl: "http://127.0.0.1:9/v1", fetch: stream.fetch });

type Streaming = (stream: ReturnType<typeof scriptedStream>) => Promise<{ text: string }>;

/** "Hello world" in two reads of the stream, "Hel" + "lo" in the first: two deltas, one a read. */
async function expectOneDeltaARead(chat: Streaming, first: string[], second: string[]): Promise<void> {
  const stream = scriptedStream();
  const answer = chat(stream);
  stream.send(...first);
  await stream.handedOn(1);
  stream.send(...second);
  stream.end();
  expect((await answer).text).toBe("Hello world");
  expect(stream.deltas).toEqual([
    { type: "text", text: "Hello" },
    { type: "text", text: " world" },
  ]);
}

const hi = [{ role: "user" as const, content: "hi" }];

describe("a streamed answer's deltas, one per read of the provider's stream", () => {
  test("OpenAI-compatible: the text pieces of one read are one delta; the next read's, another", async () => {
    await expectOneDeltaARead(
      (stream) => new OpenAICompatibleProvider(options(stream)).chat({ model: "m", messages: hi, onDelta: stream.onDelta }),
      [openaiChunk({ role: "assistant", content: "" }), openaiChunk({ content: "Hel" }), openaiChunk({ content: "lo" })],
      [openaiChunk({ content: " world" }), openaiChunk({}, "stop"), "data: [DONE]\n\n"],
    );
  });

  test("OpenAI-compatible: a tool call piece between text pieces of one read keeps its place", async () => {
    const stream = scriptedStream();
    const answer = new OpenAICompatibleProvider(options(stream)).chat({ model: "m", messages: hi, onDelta: stream.onDelta });
    const call = { index: 0, id: "call_1", type: "function", function: { name: "memory_store", arguments: "{}" } };
    stream.send(openaiChunk({ content: "a" }), openaiChunk({ content: "b" }), openaiChunk({ tool_calls: [call] }), openaiChunk({ content: "c" }), openaiChunk({}, "tool_calls"));
    stream.end();
    await answer;
    expect(stream.deltas).toEqual([
      { type: "text", text: "ab" },
      { type: "tool_call", index: 0, id: "call_1", name: "memory_store", argumentsDelta: "{}" },
      { type: "text", text: "c" },
    ]);
  });

  test("OpenAI-compatible: text read with an error event is handed on before the error", async () => {
    const stream = scriptedStream();
    const answer = new OpenAICompatibleProvider(options(stream)).chat({ model: "m", messages: hi, onDelta: stream.onDelta });
    stream.send(openaiChunk({ content: "par" }), openaiChunk({ content: "tial" }), data({ error: { message: "overloaded", code: 529 } }));
    stream.end();
    const failure = await answer.then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(PrxError);
    expect((failure as PrxError).message).toContain("overloaded");
    expect(stream.deltas).toEqual([{ type: "text", text: "partial" }]);
  });

  test("Anthropic: the text deltas of one read are one delta", async () => {
    const message = { id: "msg_1", type: "message", role: "assistant", model: "claude", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } };
    await expectOneDeltaARead(
      (stream) => new AnthropicProvider(options(stream)).chat({ model: "claude", messages: hi, onDelta: stream.onDelta }),
      [
        named("message_start", { message }),
        named("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
        named("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Hel" } }),
        named("content_block_delta", { index: 0, delta: { type: "text_delta", text: "lo" } }),
      ],
      [
        named("content_block_delta", { index: 0, delta: { type: "text_delta", text: " world" } }),
        named("content_block_stop", { index: 0 }),
        named("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 2 } }),
        named("message_stop", {}),
      ],
    );
  });

  test("OpenAI Responses: the text deltas of one read are one delta, handed on before the response completes", async () => {
    const where = { item_id: "msg_1", output_index: 0, content_index: 0 };
    const item = { type: "message", id: "msg_1", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Hello world", annotations: [] }] };
    await expectOneDeltaARead(
      (stream) => new OpenAIResponsesProvider(options(stream)).chat({ model: "m", messages: hi, onDelta: stream.onDelta }),
      [named("response.output_text.delta", { ...where, delta: "Hel" }), named("response.output_text.delta", { ...where, delta: "lo" })],
      [
        named("response.output_text.delta", { ...where, delta: " world" }),
        named("response.completed", { response: { id: "resp_1", object: "response", status: "completed", model: "m", output: [item], usage: null } }),
      ],
    );
  });
});
