import { expect, test } from "bun:test";
import { acceptPlainChatRequest } from "../../src/gateway/openai/request-accept.ts";
import { ChatCompletionRequestSchema } from "../../src/gateway/openai/schemas.ts";
import { OPENAI_MAX_MESSAGES, USER_MESSAGE_MAX_CHARS } from "../../src/gateway/limits.ts";
import { fastAcceptAgrees, fieldVariants } from "../helpers/fast-accept.ts";

/** Values tried in every field: valid and invalid for one field or another. */
const PROBES: unknown[] = [
  undefined, null, "", "x", "auto", "none", "required", "user", "tool", "bogus", 0, -1, 1, 1.5, 2, 2.5, 2 ** 53, true, false,
  [], [{}], {}, { a: 1 }, "a".repeat(USER_MESSAGE_MAX_CHARS), "a".repeat(USER_MESSAGE_MAX_CHARS + 1),
];

const BASE = {
  model: "fake-model",
  messages: [
    { role: "system", content: "be brief" },
    { role: "user", content: "hello", name: "ann" },
  ],
  stream: false,
  temperature: 0.5,
  max_tokens: 100,
  max_completion_tokens: 90,
  tool_choice: "auto",
  parallel_tool_calls: true,
  user: "u1",
  metadata: { kept: true },
};

const PATHS = [
  ["model"], ["messages"], ["stream"], ["temperature"], ["max_tokens"], ["max_completion_tokens"], ["tool_choice"],
  ["parallel_tool_calls"], ["user"], ["metadata"], ["tools"], ["functions"], ["function_call"], ["stream_options"],
  ["response_format"], ["messages", "0"], ["messages", "1", "role"], ["messages", "1", "content"], ["messages", "1", "name"],
  ["messages", "1", "tool_calls"], ["messages", "1", "tool_call_id"], ["messages", "1", "extra"],
];

/** What the hand check leaves to the schema even when valid: tools, response_format, stream_options, content parts, tool calls. */
function uncommon(value: unknown): boolean {
  const v = value as Record<string, unknown>;
  const messages = v.messages as Array<Record<string, unknown>>;
  return (
    v.tools != null || v.response_format != null || v.stream_options != null ||
    messages.some((m) => Array.isArray(m.content) || m.tool_calls !== undefined)
  );
}

test("the hand check accepts only what ChatCompletionRequestSchema accepts, and returns what it returns", () => {
  const many = { model: "m", messages: Array.from({ length: OPENAI_MAX_MESSAGES }, () => ({ role: "user", content: "x" })) };
  const tooMany = { model: "m", messages: [...many.messages, { role: "user", content: "x" }] };
  const corpus = [...fieldVariants(BASE, PATHS, PROBES), null, [], "x", {}, { model: "m", messages: [] }, many, tooMany];
  const { fast } = fastAcceptAgrees(ChatCompletionRequestSchema, (v) => acceptPlainChatRequest(v) !== null, corpus);
  expect(fast).toBeGreaterThan(100);
  // what the schema accepts without the fields the hand check leaves to it is the common request: it takes all of it
  const missed = corpus.filter((v) => ChatCompletionRequestSchema.safeParse(v).success && !uncommon(v) && acceptPlainChatRequest(v) === null);
  expect(missed).toEqual([]);
  expect(acceptPlainChatRequest(tooMany)).toBeNull();
  const withTools = { ...BASE, tools: [{ type: "function", function: { name: "f" } }] };
  expect(acceptPlainChatRequest(withTools)).toBeNull();
  expect(ChatCompletionRequestSchema.safeParse(withTools).success).toBe(true);
});
