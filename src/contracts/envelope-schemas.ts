import { z } from "zod";
import { isPlainObject, withFastAccept, type Parser } from "../core/fast-accept.ts";
import { ChatMessageSchema, ToolCallSchema, ToolSpecSchema, UsageSchema } from "./chat.ts";
import type { Stage } from "./stages.ts";

/**
 * The JSON envelopes passed through the four middleware stages. A middleware receives one and returns
 * the (possibly changed) envelope; a reply that fails these schemas is rejected and the original passes on. Only
 * what reads a middleware's reply loads this module (and zod): a turn without plugins passes envelopes unchecked.
 */
export const InboundEnvelopeSchema = z.object({
  text: z.string(),
  channel: z.string(),
  user_id: z.string().nullable(),
  session_id: z.string(),
  metadata: z.record(z.string(), z.unknown()),
});

export const LlmRequestEnvelopeSchema = z.object({
  messages: z.array(ChatMessageSchema),
  model: z.string(),
  temperature: z.number(),
  tools: z.array(ToolSpecSchema),
});

export const LlmResponseEnvelopeSchema = z.object({
  text: z.string(),
  tool_calls: z.array(ToolCallSchema),
  model: z.string(),
  usage: UsageSchema.nullable(),
});

export const OutboundEnvelopeSchema = z.object({
  text: z.string(),
  channel: z.string(),
  session_id: z.string(),
});

export const EnvelopeSchemas = {
  inbound: InboundEnvelopeSchema,
  llm_request: LlmRequestEnvelopeSchema,
  llm_response: LlmResponseEnvelopeSchema,
  outbound: OutboundEnvelopeSchema,
} as const;

/** Exactly `count` own keys: zod strips unknown keys, so a fast-accepted envelope must not carry any. */
function keyCount(value: Record<string, unknown>): number {
  let count = 0;
  for (const key in value) if (Object.hasOwn(value, key)) count++;
  return count;
}
const isString = (value: unknown): value is string => typeof value === "string";
const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

export function isPlainInbound(v: unknown): v is Envelopes["inbound"] {
  if (!isPlainObject(v) || keyCount(v) !== 5 || !isPlainObject(v.metadata)) return false;
  if (v.user_id !== null && !isString(v.user_id)) return false;
  return isString(v.text) && isString(v.channel) && isString(v.session_id);
}

export function isPlainOutbound(v: unknown): v is Envelopes["outbound"] {
  return isPlainObject(v) && keyCount(v) === 3 && isString(v.text) && isString(v.channel) && isString(v.session_id);
}

export function isPlainLlmResponse(v: unknown): v is Envelopes["llm_response"] {
  if (!isPlainObject(v) || keyCount(v) !== 4 || !isString(v.text) || !isString(v.model)) return false;
  if (!Array.isArray(v.tool_calls)) return false;
  for (const call of v.tool_calls as unknown[]) {
    if (!isPlainObject(call) || keyCount(call) !== 3) return false;
    if (!isString(call.id) || !isString(call.name) || !isString(call.arguments)) return false;
  }
  const usage = v.usage;
  if (usage === null) return true;
  if (!isPlainObject(usage) || keyCount(usage) !== 3) return false;
  return isCount(usage.prompt_tokens) && isCount(usage.completion_tokens) && isCount(usage.total_tokens);
}

/**
 * What a middleware reply is parsed with: the stage's schema behind a hand check of its plain shape (every
 * middleware call that changes the envelope pays for one; llm_request, with messages and tools, stays on zod).
 */
export const EnvelopeParsers: { [S in Stage]: Parser<Envelopes[S]> } = {
  inbound: withFastAccept(InboundEnvelopeSchema, isPlainInbound),
  llm_request: LlmRequestEnvelopeSchema,
  llm_response: withFastAccept(LlmResponseEnvelopeSchema, isPlainLlmResponse),
  outbound: withFastAccept(OutboundEnvelopeSchema, isPlainOutbound),
};

export interface Envelopes {
  inbound: z.infer<typeof InboundEnvelopeSchema>;
  llm_request: z.infer<typeof LlmRequestEnvelopeSchema>;
  llm_response: z.infer<typeof LlmResponseEnvelopeSchema>;
  outbound: z.infer<typeof OutboundEnvelopeSchema>;
}

