import { expect, test } from "bun:test";
import { acceptPlainMessagesRequest } from "../../src/gateway/anthropic/request-accept.ts";
import { MessagesRequestSchema } from "../../src/gateway/anthropic/schemas.ts";
import { ANTHROPIC_MAX_MESSAGES, ANTHROPIC_USER_ID_MAX_CHARS, USER_MESSAGE_MAX_CHARS } from "../../src/gateway/limits.ts";
import { fastAcceptAgrees, fieldVariants } from "../helpers/fast-accept.ts";

/** Values tried in every field: valid and invalid for one field or another. */
const PROBES: unknown[] = [
  undefined, null, "", "x", "text", "image", "user", "assistant", "system", "tool", "auto", 0, -1, 1, 0.5, 1.5, 2 ** 53, Infinity, NaN,
  true, false, [], [{}], [{ type: "text", text: "t" }], {}, { a: 1 }, { type: "ephemeral" }, { user_id: "u" }, { type: "auto" },
  "a".repeat(USER_MESSAGE_MAX_CHARS), "a".repeat(USER_MESSAGE_MAX_CHARS + 1),
  "a".repeat(ANTHROPIC_USER_ID_MAX_CHARS), "a".repeat(ANTHROPIC_USER_ID_MAX_CHARS + 1),
];

const BASE = {
  model: "fake-model",
  max_tokens: 1024,
  system: [{ type: "text", text: "be brief", cache_control: { type: "ephemeral" } }],
  messages: [
    { role: "user", content: "hello" },
    { role: "assistant", content: [{ type: "text", text: "hi" }] },
    { role: "user", content: [{ type: "text", text: "again", cache_control: { type: "ephemeral", ttl: "5m" } }] },
  ],
  stream: false,
  temperature: 0.5,
  top_p: 0.9,
  top_k: 5,
  metadata: { user_id: "u1" },
  thinking: { kept: true },
};

const PATHS = [
  ["model"], ["max_tokens"], ["system"], ["messages"], ["stream"], ["temperature"], ["top_p"], ["top_k"], ["metadata"],
  ["metadata", "user_id"], ["thinking"], ["tools"], ["tool_choice"], ["stop_sequences"], ["system", "0"],
  ["system", "0", "type"], ["system", "0", "text"], ["system", "0", "cache_control"], ["messages", "0"],
  ["messages", "0", "role"], ["messages", "0", "content"], ["messages", "0", "extra"], ["messages", "1", "content"],
  ["messages", "1", "content", "0"], ["messages", "1", "content", "0", "type"], ["messages", "1", "content", "0", "text"],
  ["messages", "2", "content", "0", "cache_control"], ["messages", "2", "content", "0", "cache_control", "type"],
];

/** What the hand check leaves to the schema even when valid: tools, tool_choice, stop sequences, blocks other than text. */
function uncommon(value: unknown): boolean {
  const v = value as Record<string, unknown>;
  const messages = v.messages as Array<Record<string, unknown>>;
  return (
    v.tools !== undefined || v.tool_choice !== undefined || v.stop_sequences !== undefined ||
    messages.some((m) => Array.isArray(m.content) && m.content.some((b: { type?: unknown }) => b.type !== "text"))
  );
}

test("the hand check accepts only what MessagesRequestSchema accepts, and returns what it returns", () => {
  const many = { model: "m", max_tokens: 1, messages: Array.from({ length: ANTHROPIC_MAX_MESSAGES }, () => ({ role: "user", content: "x" })) };
  const tooMany = { ...many, messages: [...many.messages, { role: "user", content: "x" }] };
  const corpus = [...fieldVariants(BASE, PATHS, PROBES), null, [], "x", {}, { model: "m", max_tokens: 1, messages: [] }, many, tooMany];
  const { fast } = fastAcceptAgrees(MessagesRequestSchema, (v) => acceptPlainMessagesRequest(v) !== null, corpus);
  expect(fast).toBeGreaterThan(100);
  // what the schema accepts without the fields the hand check leaves to it is the common request: it takes all of it
  const missed = corpus.filter((v) => MessagesRequestSchema.safeParse(v).success && !uncommon(v) && acceptPlainMessagesRequest(v) === null);
  expect(missed).toEqual([]);
  expect(acceptPlainMessagesRequest(many)).not.toBeNull();
  expect(acceptPlainMessagesRequest(tooMany)).toBeNull();
  const withTools = { ...BASE, tools: [{ name: "f", input_schema: { type: "object" } }] };
  expect(acceptPlainMessagesRequest(withTools)).toBeNull();
  expect(MessagesRequestSchema.safeParse(withTools).success).toBe(true);
});
