import { isCount, isInteger, isNumber, isPlainObject, isString, optional } from "../../core/fast-accept/index.ts";
import { ANTHROPIC_MAX_MESSAGES, ANTHROPIC_USER_ID_MAX_CHARS, USER_MESSAGE_MAX_CHARS } from "../limits.ts";
import type { MessagesRequest } from "./schemas.ts";

/**
 * The common Messages request (text messages and a text system prompt, no client tools, no tool_choice, no stop
 * sequences) checked by hand in front of MessagesRequestSchema, which decides everything else and writes every error.
 * What it buys: the schema's parse of a one-message request walks a union of a string and an array of a discriminated
 * union of five block schemas per message, allocating on every turn what a chat completions turn no longer does. It
 * accepts only what the schema accepts and returns it as the schema would: the same object, unknown keys kept, as a
 * loose object keeps them (test/gateway/anthropic-request-accept.test.ts runs both on one corpus); null means "ask the
 * schema".
 */
export function acceptPlainMessagesRequest(value: unknown): MessagesRequest | null {
  if (!isPlainObject(value)) return null;
  const v = value;
  // the fields only the schema checks
  if (v.tools !== undefined || v.tool_choice !== undefined || v.stop_sequences !== undefined) return null;
  if (typeof v.model !== "string" || v.model.length === 0) return null;
  if (!isInteger(v.max_tokens) || v.max_tokens <= 0) return null;
  if (v.stream !== undefined && typeof v.stream !== "boolean") return null;
  if (!optional(v.temperature, isUnit) || !optional(v.top_p, isUnit) || !optional(v.top_k, isCount)) return null;
  if (!optional(v.metadata, isMetadata)) return null;
  if (!optional(v.system, isTextContent)) return null;
  const messages = v.messages;
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > ANTHROPIC_MAX_MESSAGES) return null;
  for (const message of messages) if (!isTextMessage(message)) return null;
  return v as MessagesRequest;
}

const ROLES: ReadonlySet<unknown> = new Set(["user", "assistant", "system"]);

/** A message whose content is text: a string, or text blocks. */
function isTextMessage(m: unknown): boolean {
  return isPlainObject(m) && ROLES.has(m.role) && isTextContent(m.content);
}

/** A string, or an array of text blocks (what a message's content and `system` both take). */
function isTextContent(content: unknown): boolean {
  if (typeof content === "string") return content.length <= USER_MESSAGE_MAX_CHARS;
  if (!Array.isArray(content)) return false;
  for (const block of content) if (!isTextBlock(block)) return false;
  return true;
}

function isTextBlock(b: unknown): boolean {
  if (!isPlainObject(b) || b.type !== "text" || !isString(b.text) || b.text.length > USER_MESSAGE_MAX_CHARS) return false;
  const cache = b.cache_control;
  return cache === undefined || cache === null || (isPlainObject(cache) && isString(cache.type));
}

function isMetadata(m: unknown): boolean {
  if (!isPlainObject(m)) return false;
  const id = m.user_id;
  return id === undefined || id === null || (isString(id) && id.length <= ANTHROPIC_USER_ID_MAX_CHARS);
}

const isUnit = (v: unknown): boolean => isNumber(v) && v >= 0 && v <= 1;
