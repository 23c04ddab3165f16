import { expect, test } from "bun:test";
import type { ZodType } from "zod";
import { acceptTextEvent, acceptTextMessage } from "../../src/providers/anthropic-response-accept.ts";
import { AnthropicResponseSchema, AnthropicStreamEventSchema } from "../../src/providers/anthropic-wire.ts";

/** Values tried in every field: valid and invalid for one field or another. */
const PROBES: unknown[] = [null, "", "x", "text", "text_delta", 0, -1, 1, 1.5, 2 ** 53, NaN, true, [], [{}], {}, { a: 1 }];
const DELETE = Symbol("delete");

/** A text answer as https://docs.anthropic.com/en/api/messages documents it, with the newer usage fields. */
const MESSAGE = {
  id: "msg_013Zva2CMHLNnXjNJJKqJ2EF",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-20250514",
  content: [{ type: "text", text: "Hi! My name is Claude.", citations: null }],
  stop_reason: "end_turn",
  stop_sequence: null,
  container: null,
  usage: {
    input_tokens: 2095,
    output_tokens: 503,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    server_tool_use: { web_search_requests: 0 },
    service_tier: "standard",
  },
};

/** The answers that are not text only: the schema's to read. */
const TOOL_USE = { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", input: { location: "San Francisco, CA" } };
const THINKING = { type: "thinking", thinking: "Let me analyze this step by step...", signature: "WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve" };
const NOT_TEXT_MESSAGES = [
  { ...MESSAGE, content: [{ type: "text", text: "I'll check." }, TOOL_USE], stop_reason: "tool_use" },
  { ...MESSAGE, content: [THINKING, MESSAGE.content[0]] },
  { ...MESSAGE, content: [{ type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP" }] },
];

/** The events of a streamed text answer, as https://docs.anthropic.com/en/api/messages-streaming documents them. */
const TEXT_EVENTS = [
  {
    type: "message_start",
    message: {
      id: "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
      type: "message",
      role: "assistant",
      content: [],
      model: "claude-opus-4-20250514",
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 25, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: "standard" },
    },
  },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "ping" },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "!" } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 15 } },
  { type: "message_stop" },
];

/** The events of tool use, thinking and errors: the schema's to read. */
const NOT_TEXT_EVENTS = [
  { type: "content_block_start", index: 1, content_block: { ...TOOL_USE, input: {} } },
  { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"location": "San Fra' } },
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Let me solve this step by step" } },
  { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h" } },
  { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
];

type Json = Record<string, unknown>;

/** Every path into `value` (array items included), each as a list of keys. */
function paths(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [[...prefix, key], ...paths(child, [...prefix, key])]);
}

/** `base` with the field at `path` replaced by `probe` (or removed), or undefined when the base has no such parent. */
function variant(base: unknown, path: string[], probe: unknown): unknown {
  const copy = structuredClone(base) as Json;
  let at: unknown = copy;
  for (const key of path.slice(0, -1)) at = (at as Json | undefined)?.[key];
  if (typeof at !== "object" || at === null) return undefined;
  if (probe === DELETE) delete (at as Json)[path.at(-1)!];
  else (at as Json)[path.at(-1)!] = probe;
  return copy;
}

/** Every variant of each base with one field replaced by each probe or removed; `extra` adds fields the bases lack. */
function corpus(bases: unknown[], extra: string[][] = []): unknown[] {
  const out: unknown[] = [...bases, null, [], "x", 1, {}];
  for (const base of bases) {
    for (const path of [...paths(base), ...extra]) {
      for (const probe of [...PROBES, DELETE]) {
        const value = variant(base, path, probe);
        if (value !== undefined) out.push(value);
      }
    }
  }
  return out;
}

const isTextBlock = (block: unknown) => (block as Json | null)?.type === "text" && typeof (block as Json).text === "string";

test("the hand check of a message accepts only what AnthropicResponseSchema accepts, and returns what it returns", () => {
  const extra = [["stop_reason"], ["stop_sequence"], ["usage", "cache_read_input_tokens"], ["content", "1"]];
  const bases = [MESSAGE, { ...MESSAGE, content: [] }, { ...MESSAGE, usage: {} }, ...NOT_TEXT_MESSAGES];
  // what the schema accepts with text blocks only is the common answer: the hand check takes all of it
  const fast = agreeing(corpus(bases, extra), acceptTextMessage, AnthropicResponseSchema, (value) =>
    (value as { content: unknown[] }).content.every(isTextBlock),
  );
  expect(fast).toBeGreaterThan(100);
  expect(acceptTextMessage(MESSAGE)).toStrictEqual({
    id: MESSAGE.id,
    type: "message",
    role: "assistant",
    model: MESSAGE.model,
    content: [{ type: "text", text: "Hi! My name is Claude." }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 2095, output_tokens: 503, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  });
  for (const message of NOT_TEXT_MESSAGES) {
    expect(acceptTextMessage(message)).toBeNull();
    expect(AnthropicResponseSchema.safeParse(message).success).toBe(true);
  }
});

/** A text event the hand check is meant to take: its type is one of a text answer's, its block or delta is text. */
function isTextEvent(event: Json): boolean {
  switch (event.type) {
    case "content_block_start":
      return isTextBlock(event.content_block);
    case "content_block_delta": {
      const delta = event.delta as Json;
      return delta.type === "text_delta" && typeof delta.text === "string";
    }
    default:
      return ["message_start", "content_block_stop", "message_delta", "message_stop", "ping"].includes(event.type as string);
  }
}

test("the hand check of a stream event accepts only what AnthropicStreamEventSchema accepts, and returns what it returns", () => {
  const extra = [["index"], ["usage"], ["usage", "input_tokens"], ["delta", "stop_sequence"], ["message", "content", "0"]];
  const fast = agreeing(corpus([...TEXT_EVENTS, ...NOT_TEXT_EVENTS], extra), acceptTextEvent, AnthropicStreamEventSchema, (value) =>
    isTextEvent(value as Json),
  );
  expect(fast).toBeGreaterThan(100);
  for (const event of TEXT_EVENTS) expect(acceptTextEvent(event)).toStrictEqual(AnthropicStreamEventSchema.parse(event));
  for (const event of NOT_TEXT_EVENTS) {
    expect(acceptTextEvent(event)).toBeNull();
    expect(AnthropicStreamEventSchema.safeParse(event).success).toBe(true);
  }
});

/**
 * Runs the hand check and the schema on every value: what the hand check takes, the schema takes and returns alike;
 * what it declines, the schema refuses or it is not the common answer. Returns how many the hand check took.
 */
function agreeing(values: Iterable<unknown>, hand: (value: unknown) => unknown, schema: ZodType, common: (value: unknown) => boolean): number {
  let taken = 0;
  for (const value of values) {
    const accepted = hand(value);
    const parsed = schema.safeParse(value);
    if (accepted === null) {
      expect({ value, common: parsed.success && common(value) }).toEqual({ value, common: false });
      continue;
    }
    taken++;
    expect({ value, accepted: parsed.success }).toEqual({ value, accepted: true });
    expect(accepted).toStrictEqual(parsed.data as object);
  }
  return taken;
}
