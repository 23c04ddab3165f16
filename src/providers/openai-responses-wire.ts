import { z } from "zod";

/**
 * What prx reads of an upstream that speaks the OpenAI Responses API: the response object (JSON) and its streamed
 * events. Loose: fields prx does not use are let through, unknown output item types are skipped.
 */

export const UpstreamReasoningItemSchema = z.looseObject({
  type: z.literal("reasoning"),
  id: z.string().optional(),
  encrypted_content: z.string().nullable().optional(),
});
export type UpstreamReasoningItem = z.infer<typeof UpstreamReasoningItemSchema>;

const MessageItemSchema = z.looseObject({
  type: z.literal("message"),
  content: z.array(z.looseObject({ type: z.string(), text: z.string().optional(), refusal: z.string().optional() })),
});

const FunctionCallItemSchema = z.looseObject({
  type: z.literal("function_call"),
  id: z.string().optional(),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
});

export const UpstreamItemSchema = z.union([
  MessageItemSchema,
  FunctionCallItemSchema,
  UpstreamReasoningItemSchema,
  z.looseObject({ type: z.string() }),
]);
export type UpstreamItem = z.infer<typeof UpstreamItemSchema>;

const UsageSchema = z.looseObject({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});

export const UpstreamResponseSchema = z.looseObject({
  id: z.string().optional(),
  object: z.literal("response").optional(),
  status: z.string().optional(),
  model: z.string().optional(),
  output: z.array(UpstreamItemSchema),
  usage: UsageSchema.nullable().optional(),
  error: z.looseObject({ message: z.string().optional(), code: z.string().nullable().optional() }).nullable().optional(),
  incomplete_details: z.looseObject({ reason: z.string().optional() }).nullable().optional(),
});
export type UpstreamResponse = z.infer<typeof UpstreamResponseSchema>;

export const UpstreamEventSchema = z.looseObject({
  type: z.string(),
  delta: z.string().optional(),
  output_index: z.number().int().optional(),
  item: UpstreamItemSchema.optional(),
  response: z.looseObject({}).optional(),
  message: z.string().optional(),
  code: z.string().nullable().optional(),
});
