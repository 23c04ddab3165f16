import { isInteger, isNumber, isPlainObject, isString } from "../../core/fast-accept/index.ts";
import { USER_MESSAGE_MAX_CHARS, OPENAI_MAX_MESSAGES } from "../limits.ts";
import type { ChatCompletionRequest } from "./schemas.ts";

/**
 * The common chat completion request (messages of text, no client tools, no response_format) checked by hand in
 * front of ChatCompletionRequestSchema, which decides everything else and writes every error. What it buys,
 * measured: the schema's parse of a one-message request allocates ~77 cells (27 objects, 29 arrays, 21 scopes) of
 * the ~560 a gateway turn allocates, and ~2.4 us hot, 50-70 us with the cold caches of a turn every 20 ms. It accepts
 * only what the schema accepts and returns it as the schema would: the same object, unknown keys kept, as a loose
 * object keeps them (test/gateway/openai-request-accept.test.ts runs both on one corpus); null means "ask the schema".
 */
export function acceptPlainChatRequest(value: unknown): ChatCompletionRequest | null {
  if (!isPlainObject(value)) return null;
  const v = value;
  // the fields only the schema checks (and the legacy ones it refuses)
  if (v.tools != null || v.response_format != null || v.stream_options != null) return null;
  if (v.functions != null || v.function_call != null) return null;
  if (typeof v.model !== "string" || v.model.length === 0) return null;
  if (!orNull(v.tool_choice, (c) => c === "auto" || c === "none")) return null;
  if (!orNull(v.parallel_tool_calls, isBoolean) || !orNull(v.stream, isBoolean)) return null;
  if (!orNull(v.temperature, (t) => isNumber(t) && t >= 0 && t <= 2)) return null;
  if (!orNull(v.max_tokens, isPositiveInteger) || !orNull(v.max_completion_tokens, isPositiveInteger)) return null;
  if (v.user !== undefined && typeof v.user !== "string") return null;
  const messages = v.messages;
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > OPENAI_MAX_MESSAGES) return null;
  for (const message of messages) if (!isPlainMessage(message)) return null;
  return v as ChatCompletionRequest;
}

const ROLES: ReadonlySet<unknown> = new Set(["system", "developer", "user", "assistant", "tool"]);

/** A message whose content is text (or none), without tool calls. */
function isPlainMessage(m: unknown): boolean {
  if (!isPlainObject(m) || !ROLES.has(m.role) || m.tool_calls !== undefined) return false;
  const content = m.content;
  if (content !== undefined && content !== null && !(typeof content === "string" && content.length <= USER_MESSAGE_MAX_CHARS)) return false;
  return (m.name === undefined || isString(m.name)) && (m.tool_call_id === undefined || isString(m.tool_call_id));
}

const isBoolean = (v: unknown): boolean => typeof v === "boolean";
const isPositiveInteger = (v: unknown): boolean => isInteger(v) && (v as number) > 0;
/** zod's `.nullable().optional()` around `check`. */
const orNull = (v: unknown, check: (v: unknown) => boolean): boolean => v === undefined || v === null || check(v);
