import { z } from "zod";
import { ChatMessageSchema, ToolCallSchema, ToolSpecSchema, UsageSchema } from "./chat.ts";
import type { Stage } from "./stages.ts";

/**
 * The JSON envelopes passed through the four middleware stages. A middleware receives one and returns
 * the (possibly changed) envelope; a reply that fails these schemas is rejected and the original passes on.
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

export interface Envelopes {
  inbound: z.infer<typeof InboundEnvelopeSchema>;
  llm_request: z.infer<typeof LlmRequestEnvelopeSchema>;
  llm_response: z.infer<typeof LlmResponseEnvelopeSchema>;
  outbound: z.infer<typeof OutboundEnvelopeSchema>;
}

