import { isPlainObject, withFastAccept } from "../core/fast-accept/index.ts";
import { ParentMessageSchema, type ParentMessage } from "./ipc.ts";
import { FORWARDED_QUERY_MAX_CHARS, INBOUND_ID_MAX_CHARS } from "./limits.ts";
import { InboundMessageSchema, type InboundMessage } from "./types.ts";

/**
 * The two checks every message a webhook-routed channel answers passes (the gateway's forwarded request, read from
 * IPC, and the adapter's normalised message, read by the runner) made by hand in front of their zod schemas, which
 * decide everything else and write every error: a channel process runs its JavaScript with a reluctant JIT
 * (boot/channel-jit.ts), where the two zod parses took ~0.1 ms of each message's path to its turn. Each check accepts
 * only what its schema accepts and returns it as the schema would (test/channels/fast-accept.test.ts runs both on one
 * corpus); anything else, an attachment or an unknown key, goes to the schema.
 */

/** Only keys of `allowed` (a strict object's), every one of `required` among them. */
function hasKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>, required: number): boolean {
  let count = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || !allowed.has(key)) return false;
    count++;
  }
  return count >= required && Object.getOwnPropertySymbols(value).length === 0;
}

const text = (v: unknown, min: number, max: number): v is string => typeof v === "string" && v.length >= min && v.length <= max;

function isStringRecord(value: unknown): value is Record<string, string> {
  if (!isPlainObject(value) || Object.getOwnPropertySymbols(value).length > 0) return false;
  for (const key in value) if (!Object.hasOwn(value, key) || typeof value[key] !== "string") return false;
  return true;
}

const HTTP_KEYS = new Set(["type", "id", "request"]);
const REQUEST_KEYS = new Set(["method", "query", "headers", "body"]);

/** The gateway's forwarded request (`http`); the other messages of the gateway are rare and go to the schema. */
export function plainForwardedRequest(v: unknown): ParentMessage | null {
  if (!isPlainObject(v) || v.type !== "http" || !Number.isSafeInteger(v.id) || !hasKeys(v, HTTP_KEYS, HTTP_KEYS.size)) return null;
  const r = v.request;
  if (!isPlainObject(r) || typeof r.method !== "string" || typeof r.body !== "string" || !isStringRecord(r.headers)) return null;
  const withQuery = r.query !== undefined;
  if (withQuery && !text(r.query, 0, FORWARDED_QUERY_MAX_CHARS)) return null;
  return hasKeys(r, REQUEST_KEYS, withQuery ? 4 : 3) ? (v as ParentMessage) : null;
}

const INBOUND_KEYS = new Set(["id", "channel", "chatId", "chatKind", "threadId", "senderId", "senderDisplay", "senderIsBot", "text", "replyTo", "mentioned", "timestamp"]);
const CHAT_KINDS: ReadonlySet<unknown> = new Set(["dm", "group", "thread"]);

/** An adapter's message without attachments, copied (as the schema's parse copies it). */
export function plainInboundMessage(v: unknown): InboundMessage | null {
  if (!isPlainObject(v) || !hasKeys(v, INBOUND_KEYS, INBOUND_KEYS.size)) return null;
  const ok =
    text(v.id, 1, INBOUND_ID_MAX_CHARS) &&
    text(v.channel, 1, Number.POSITIVE_INFINITY) &&
    text(v.chatId, 1, INBOUND_ID_MAX_CHARS) &&
    CHAT_KINDS.has(v.chatKind) &&
    (v.threadId === null || text(v.threadId, 1, INBOUND_ID_MAX_CHARS)) &&
    text(v.senderId, 1, INBOUND_ID_MAX_CHARS) &&
    text(v.senderDisplay, 0, INBOUND_ID_MAX_CHARS) &&
    typeof v.senderIsBot === "boolean" &&
    typeof v.text === "string" &&
    (v.replyTo === null || typeof v.replyTo === "string") &&
    typeof v.mentioned === "boolean" &&
    Number.isSafeInteger(v.timestamp) &&
    (v.timestamp as number) >= 0;
  return ok ? ({ ...v } as InboundMessage) : null;
}

export const ParentMessageParser = withFastAccept(ParentMessageSchema, plainForwardedRequest);
export const InboundMessageParser = withFastAccept(InboundMessageSchema, plainInboundMessage);
