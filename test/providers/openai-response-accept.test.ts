import { expect, test } from "bun:test";
import { acceptTextChunk, acceptTextResponse } from "../../src/providers/openai-response-accept.ts";
import { OpenAIChatResponseSchema, OpenAIChunkSchema } from "../../src/providers/openai-wire.ts";

/** Values tried in every field: valid and invalid for one field or another. */
const PROBES: unknown[] = [undefined, null, "", "x", 0, -1, 1, 1.5, 2 ** 53, true, [], [{}], {}, { a: 1 }];

const BASE = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1_733_000_000,
  model: "gpt-4o-mini",
  system_fingerprint: "fp_1",
  choices: [{ index: 0, message: { role: "assistant", content: "hi", refusal: null }, logprobs: null, finish_reason: "stop" }],
  usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12, prompt_tokens_details: { cached_tokens: 4, audio_tokens: 0 } },
};

const PATHS = [
  ["id"], ["object"], ["created"], ["model"], ["choices"], ["usage"],
  ["choices", "0"], ["choices", "0", "index"], ["choices", "0", "message"], ["choices", "0", "finish_reason"],
  ["choices", "0", "message", "role"], ["choices", "0", "message", "content"], ["choices", "0", "message", "tool_calls"],
  ["usage", "prompt_tokens"], ["usage", "completion_tokens"], ["usage", "total_tokens"],
  ["usage", "prompt_tokens_details"], ["usage", "prompt_tokens_details", "cached_tokens"],
];

/** Every variant of `base` with the field at `path` replaced by each probe, and removed. */
function variants(base: unknown, paths = PATHS): unknown[] {
  const out: unknown[] = [base, null, [], "x", { choices: [] }, { ...BASE, choices: [BASE.choices[0], BASE.choices[0]] }];
  for (const path of paths) {
    for (const probe of [...PROBES, "__delete__"]) {
      const copy = structuredClone(base) as Record<string, unknown>;
      let at: Record<string, unknown> | undefined = copy;
      for (const key of path.slice(0, -1)) at = at?.[key] as Record<string, unknown> | undefined;
      if (typeof at !== "object" || at === null) continue; // the base has no such field
      if (probe === "__delete__") delete at[path.at(-1)!];
      else at[path.at(-1)!] = probe;
      out.push(copy);
    }
  }
  return out;
}

test("the hand check accepts only what OpenAIChatResponseSchema accepts, and returns what it returns", () => {
  const corpus = [...variants(BASE), ...variants({ ...BASE, usage: null }), ...variants({ choices: [{ message: {} }] })];
  let fast = 0;
  for (const value of corpus) {
    const accepted = acceptTextResponse(value);
    const parsed = OpenAIChatResponseSchema.safeParse(value);
    if (accepted === null) {
      // what the schema accepts without a tool_calls field is the common answer: the hand check takes all of it
      const common = parsed.success && (value as { choices: Array<{ message: object }> }).choices.every((c) => !("tool_calls" in c.message));
      expect({ value, common }).toEqual({ value, common: false });
      continue;
    }
    fast++;
    expect(parsed.success).toBe(true);
    expect(accepted).toEqual(parsed.data!);
  }
  expect(fast).toBeGreaterThan(0);
  expect(acceptTextResponse(BASE)).not.toBeNull();
  const withCalls = structuredClone(BASE) as typeof BASE & { choices: Array<{ message: Record<string, unknown> }> };
  withCalls.choices[0]!.message.tool_calls = [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }];
  expect(acceptTextResponse(withCalls)).toBeNull();
  expect(OpenAIChatResponseSchema.safeParse(withCalls).success).toBe(true);
});

/** A text delta as OpenAI streams it (https://platform.openai.com/docs/api-reference/chat-streaming/streaming). */
const CHUNK = {
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1_733_000_000,
  model: "gpt-4o-mini",
  system_fingerprint: "fp_1",
  choices: [{ index: 0, delta: { role: "assistant", content: "hi", refusal: null }, logprobs: null, finish_reason: null }],
  usage: null,
};

const CHUNK_PATHS = [
  ["id"], ["object"], ["created"], ["model"], ["choices"], ["usage"], ["error"],
  ["choices", "0"], ["choices", "0", "index"], ["choices", "0", "delta"], ["choices", "0", "finish_reason"],
  ["choices", "0", "delta", "role"], ["choices", "0", "delta", "content"], ["choices", "0", "delta", "tool_calls"],
  ["usage", "prompt_tokens"], ["usage", "completion_tokens"], ["usage", "total_tokens"],
  ["usage", "prompt_tokens_details"], ["usage", "prompt_tokens_details", "cached_tokens"],
];

test("the hand check of a stream chunk accepts only what OpenAIChunkSchema accepts, and returns what it returns", () => {
  const last = { ...CHUNK, choices: [], usage: BASE.usage };
  const corpus = [...variants(CHUNK, CHUNK_PATHS), ...variants(last, CHUNK_PATHS), ...variants({ choices: [{ delta: {} }] }, CHUNK_PATHS)];
  let fast = 0;
  for (const value of corpus) {
    const accepted = acceptTextChunk(value);
    const parsed = OpenAIChunkSchema.safeParse(value);
    if (accepted === null) {
      // what the schema accepts without tool call deltas or an error is the common chunk: the hand check takes all of it
      const chunk = value as { error?: unknown; choices?: Array<{ delta?: object | null }> | null };
      const common = parsed.success && chunk.error === undefined && (chunk.choices ?? []).every((c) => !(c.delta && "tool_calls" in c.delta));
      expect({ value, common }).toEqual({ value, common: false });
      continue;
    }
    fast++;
    expect(parsed.success).toBe(true);
    expect(accepted).toEqual(parsed.data!);
  }
  expect(fast).toBeGreaterThan(100);
  expect(acceptTextChunk(CHUNK)).not.toBeNull();
  expect(acceptTextChunk(last)).not.toBeNull();
  const withCalls = structuredClone(CHUNK) as typeof CHUNK & { choices: Array<{ delta: Record<string, unknown> }> };
  withCalls.choices[0]!.delta.tool_calls = [{ index: 0, id: "c1", type: "function", function: { name: "f", arguments: "" } }];
  expect(acceptTextChunk(withCalls)).toBeNull();
  expect(OpenAIChunkSchema.safeParse(withCalls).success).toBe(true);
});
