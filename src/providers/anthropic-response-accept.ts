import type { AnthropicResponse, AnthropicStreamEvent, AnthropicUsage } from "./anthropic-wire.ts";
import { isCount, isInteger, isPlainObject, isString, isStringOrNull, optional } from "../core/fast-accept/index.ts";

/**
 * The common Messages API answer (a message whose content is text blocks only) checked by hand in front of
 * AnthropicResponseSchema, which decides everything else (tool_use, thinking and other blocks) and writes every error.
 * What it buys: a one-shot `prx agent -m` text turn loads neither zod nor the wire schemas. It accepts only what the
 * schema accepts and returns it as the schema would, unknown keys left out (test/providers/anthropic-response-accept.test.ts
 * runs both on one corpus); null means "ask the schema".
 */
export function acceptTextMessage(value: unknown): AnthropicResponse | null {
  if (!isPlainObject(value) || !Array.isArray(value.content)) return null;
  const content: AnthropicResponse["content"] = [];
  for (const block of value.content) {
    const text = acceptTextBlock(block);
    if (!text) return null;
    content.push(text);
  }
  return acceptMessage(value, content);
}

/**
 * The events of a streamed text answer (message_start, a text block's start, text_delta, content_block_stop,
 * message_delta, message_stop, ping) checked by hand in front of AnthropicStreamEventSchema, as acceptTextMessage is in
 * front of the message's schema. Tool-use and thinking blocks, their deltas and in-stream errors are the schema's;
 * null means "ask the schema".
 */
export function acceptTextEvent(value: unknown): AnthropicStreamEvent | null {
  if (!isPlainObject(value)) return null;
  switch (value.type) {
    case "message_start": {
      const message = value.message;
      if (!isPlainObject(message) || !Array.isArray(message.content)) return null;
      // the schema takes message_start's content as unknown items (it is [] as the API sends it)
      const accepted = acceptMessage(message, [...message.content]);
      return accepted && { type: "message_start", message: accepted };
    }
    case "content_block_start": {
      const block = acceptTextBlock(value.content_block);
      if (!isInteger(value.index) || !block) return null;
      return { type: "content_block_start", index: value.index, content_block: block };
    }
    case "content_block_delta": {
      const delta = value.delta;
      if (!isInteger(value.index) || !isPlainObject(delta) || delta.type !== "text_delta" || !isString(delta.text)) return null;
      return { type: "content_block_delta", index: value.index, delta: { type: "text_delta", text: delta.text } };
    }
    case "content_block_stop":
      return isInteger(value.index) ? { type: "content_block_stop", index: value.index } : null;
    case "message_delta": {
      const { delta, usage } = value;
      if (!isPlainObject(delta)) return null;
      const { stop_reason, stop_sequence } = delta;
      if (!optional(stop_reason, isStringOrNull) || !optional(stop_sequence, isStringOrNull)) return null;
      const outDelta: Extract<AnthropicStreamEvent, { type: "message_delta" }>["delta"] = {};
      if (stop_reason !== undefined) outDelta.stop_reason = stop_reason as string | null;
      if (stop_sequence !== undefined) outDelta.stop_sequence = stop_sequence as string | null;
      const out: AnthropicStreamEvent = { type: "message_delta", delta: outDelta };
      if (usage !== undefined) {
        const accepted = acceptUsage(usage);
        if (!accepted) return null;
        out.usage = accepted;
      }
      return out;
    }
    case "message_stop":
      return { type: "message_stop" };
    case "ping":
      return { type: "ping" };
    default:
      return null; // error events and types the schema does not know
  }
}

type TextBlock = { type: "text"; text: string };

/** AnthropicTextBlockSchema's check, the first the response block union tries. */
function acceptTextBlock(block: unknown): TextBlock | null {
  if (!isPlainObject(block) || block.type !== "text" || !isString(block.text)) return null;
  return { type: "text", text: block.text };
}

/** AnthropicResponseSchema's check of everything but the content, which the caller checked. */
function acceptMessage<Content extends unknown[]>(
  message: Record<string, unknown>,
  content: Content,
): (Omit<AnthropicResponse, "content"> & { content: Content }) | null {
  const { id, type, role, model, stop_reason, stop_sequence, usage } = message;
  if (!isString(id) || type !== "message" || role !== "assistant" || !isString(model)) return null;
  if (!optional(stop_reason, isStringOrNull) || !optional(stop_sequence, isStringOrNull)) return null;
  const acceptedUsage = acceptUsage(usage);
  if (!acceptedUsage) return null;
  const out: Omit<AnthropicResponse, "content"> & { content: Content } = {
    id,
    type: "message",
    role: "assistant",
    model,
    content,
    usage: acceptedUsage,
  };
  if (stop_reason !== undefined) out.stop_reason = stop_reason as string | null;
  if (stop_sequence !== undefined) out.stop_sequence = stop_sequence as string | null;
  return out;
}

const USAGE_KEYS = ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"] as const;

/** AnthropicUsageSchema's check: each count absent, null or a non-negative integer. */
function acceptUsage(usage: unknown): AnthropicUsage | null {
  if (!isPlainObject(usage)) return null;
  const out: AnthropicUsage = {};
  for (const key of USAGE_KEYS) {
    const count = usage[key];
    if (count === undefined) continue;
    if (count !== null && !isCount(count)) return null;
    out[key] = count;
  }
  return out;
}
