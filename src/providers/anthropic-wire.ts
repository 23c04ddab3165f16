import { z } from "zod";

/** Anthropic Messages API wire format (requests, responses, stream events, errors). */
export { ANTHROPIC_STREAM_EVENT_TYPES, ANTHROPIC_VERSION } from "./anthropic-constants.ts";

export const AnthropicTextBlockSchema = z.object({ type: z.literal("text"), text: z.string() });
export const AnthropicToolUseBlockSchema = z.object({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
});
export const AnthropicToolResultBlockSchema = z.object({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(AnthropicTextBlockSchema)]).optional(),
  is_error: z.boolean().optional(),
});
/** An image in a request (https://docs.anthropic.com/en/docs/build-with-claude/vision). */
export const AnthropicImageBlockSchema = z.object({
  type: z.literal("image"),
  source: z.discriminatedUnion("type", [
    z.object({ type: z.literal("base64"), media_type: z.string(), data: z.string() }),
    z.object({ type: z.literal("url"), url: z.string() }),
  ]),
});
export type AnthropicImageBlock = z.infer<typeof AnthropicImageBlockSchema>;

/** Block types we do not produce (thinking, documents, ...) pass through as loose objects. */
const OtherBlockSchema = z.looseObject({ type: z.string() });

export const AnthropicRequestBlockSchema = z.union([
  AnthropicTextBlockSchema,
  AnthropicToolUseBlockSchema,
  AnthropicToolResultBlockSchema,
  AnthropicImageBlockSchema,
  OtherBlockSchema,
]);
export type AnthropicRequestBlock =
  | z.infer<typeof AnthropicTextBlockSchema>
  | z.infer<typeof AnthropicToolUseBlockSchema>
  | z.infer<typeof AnthropicToolResultBlockSchema>
  | AnthropicImageBlock;

export const AnthropicMessageSchema = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.union([z.string(), z.array(AnthropicRequestBlockSchema)]),
});
export type AnthropicMessage = { role: "user" | "assistant"; content: string | AnthropicRequestBlock[] };

export const AnthropicToolSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()),
});

export const AnthropicRequestSchema = z.object({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  messages: z.array(AnthropicMessageSchema).min(1),
  system: z.union([z.string(), z.array(AnthropicTextBlockSchema)]).optional(),
  tools: z.array(AnthropicToolSchema).optional(),
  tool_choice: z.unknown().optional(),
  stream: z.boolean().optional(),
  temperature: z.number().optional(),
});
export type AnthropicRequest = z.infer<typeof AnthropicRequestSchema>;

export const AnthropicUsageSchema = z.object({
  input_tokens: z.number().int().nonnegative().nullable().optional(),
  output_tokens: z.number().int().nonnegative().nullable().optional(),
  cache_creation_input_tokens: z.number().int().nonnegative().nullable().optional(),
  cache_read_input_tokens: z.number().int().nonnegative().nullable().optional(),
});
export type AnthropicUsage = z.infer<typeof AnthropicUsageSchema>;

const ResponseBlockSchema = z.union([AnthropicTextBlockSchema, AnthropicToolUseBlockSchema, OtherBlockSchema]);

export const AnthropicResponseSchema = z.object({
  id: z.string(),
  type: z.literal("message"),
  role: z.literal("assistant"),
  model: z.string(),
  content: z.array(ResponseBlockSchema),
  stop_reason: z.string().nullable().optional(),
  stop_sequence: z.string().nullable().optional(),
  usage: AnthropicUsageSchema,
});
export type AnthropicResponse = z.infer<typeof AnthropicResponseSchema>;

export const AnthropicErrorSchema = z.object({ type: z.string(), message: z.string() });

export const AnthropicStreamEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("message_start"),
    message: AnthropicResponseSchema.extend({ content: z.array(z.unknown()) }),
  }),
  z.object({ type: z.literal("content_block_start"), index: z.number().int(), content_block: ResponseBlockSchema }),
  z.object({
    type: z.literal("content_block_delta"),
    index: z.number().int(),
    delta: z.union([
      z.object({ type: z.literal("text_delta"), text: z.string() }),
      z.object({ type: z.literal("input_json_delta"), partial_json: z.string() }),
      OtherBlockSchema,
    ]),
  }),
  z.object({ type: z.literal("content_block_stop"), index: z.number().int() }),
  z.object({
    type: z.literal("message_delta"),
    delta: z.object({ stop_reason: z.string().nullable().optional(), stop_sequence: z.string().nullable().optional() }),
    usage: AnthropicUsageSchema.optional(),
  }),
  z.object({ type: z.literal("message_stop") }),
  z.object({ type: z.literal("ping") }),
  z.object({ type: z.literal("error"), error: AnthropicErrorSchema }),
]);
export type AnthropicStreamEvent = z.infer<typeof AnthropicStreamEventSchema>;


export const AnthropicModelListSchema = z.object({
  data: z.array(z.object({ id: z.string(), type: z.string().optional(), display_name: z.string().optional() })),
  has_more: z.boolean().optional(),
});
