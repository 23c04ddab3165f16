import { z } from "zod";
import { TOOL_NAME_PATTERN, TOOL_NAME_RULE } from "../../core/tool-names.ts";
import {
  ANTHROPIC_MAX_MESSAGES,
  ANTHROPIC_MAX_STOP_SEQUENCES,
  ANTHROPIC_MAX_TOOLS,
  ANTHROPIC_STOP_SEQUENCE_MAX_CHARS,
  ANTHROPIC_USER_ID_MAX_CHARS,
  USER_MESSAGE_MAX_CHARS,
} from "../limits.ts";

/**
 * Anthropic's Messages API as prx serves it (POST /v1/messages, POST /v1/messages/count_tokens). Unknown request
 * fields (`thinking`, `service_tier`, `cache_control` on blocks, ...) are accepted and ignored; what would change the
 * answer if silently dropped (a forced tool_choice, server tools without input_schema) is a 400.
 */

const CacheControl = z.looseObject({ type: z.string() }).nullable().optional();

export const TextBlockSchema = z.looseObject({
  type: z.literal("text"),
  text: z.string().max(USER_MESSAGE_MAX_CHARS),
  cache_control: CacheControl,
});

export const ImageBlockSchema = z.looseObject({
  type: z.literal("image"),
  source: z.discriminatedUnion("type", [
    z.looseObject({
      type: z.literal("base64"),
      media_type: z.enum(["image/jpeg", "image/png", "image/gif", "image/webp"]),
      data: z.string().min(1),
    }),
    z.looseObject({ type: z.literal("url"), url: z.string().min(1) }),
  ]),
  cache_control: CacheControl,
});

export const ToolUseBlockSchema = z.looseObject({
  type: z.literal("tool_use"),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  cache_control: CacheControl,
});

export const ToolResultBlockSchema = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string().min(1),
  content: z
    .union([z.string(), z.array(z.looseObject({ type: z.string() }))])
    .optional()
    .describe("a string or blocks: text is kept; an image or other block becomes a note in the text"),
  is_error: z.boolean().optional(),
  cache_control: CacheControl,
});

/** Blocks of the model's own reasoning in the history: accepted and left out of what the model is sent again. */
export const ThinkingBlockSchema = z.looseObject({ type: z.enum(["thinking", "redacted_thinking"]) });

export const ContentBlockSchema = z.discriminatedUnion("type", [
  TextBlockSchema,
  ImageBlockSchema,
  ToolUseBlockSchema,
  ToolResultBlockSchema,
  ThinkingBlockSchema,
]);
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

/** `system` messages may sit among the others (text only): they are kept in the conversation as system messages. */
export const MessageParamSchema = z.looseObject({
  role: z.enum(["user", "assistant", "system"]),
  content: z.union([z.string().max(USER_MESSAGE_MAX_CHARS), z.array(ContentBlockSchema)]),
});
export type MessageParam = z.infer<typeof MessageParamSchema>;

/** A tool the client runs: `{name, description?, input_schema}` (type "custom" or none). */
export const ToolSchema = z.looseObject({
  type: z
    .literal("custom", { error: "only client tools with input_schema are supported; Anthropic's server tools run on Anthropic's API" })
    .nullable()
    .optional(),
  name: z.string().regex(TOOL_NAME_PATTERN, `a tool name is ${TOOL_NAME_RULE}`),
  description: z.string().optional(),
  input_schema: z.looseObject({ type: z.literal("object") }).describe("JSON Schema of the tool's input object"),
  cache_control: CacheControl,
});
export type Tool = z.infer<typeof ToolSchema>;

const FORCED = "is not supported: prx runs its own tools between model calls; send tool_choice auto (the default) or none";

export const ToolChoiceSchema = z.looseObject({
  type: z.enum(["auto", "none"], {
    error: (issue) =>
      issue.input === "any" || issue.input === "tool"
        ? `tool_choice type "${String(issue.input)}" ${FORCED}`
        : 'tool_choice.type must be "auto" or "none"',
  }),
  disable_parallel_tool_use: z.boolean().optional(),
});

const SystemSchema = z
  .union([z.string().max(USER_MESSAGE_MAX_CHARS), z.array(TextBlockSchema)])
  .optional()
  .describe("kept in the conversation as a system message; the agent's own system prompt stays first");

const MessagesFields = {
  model: z
    .string()
    .min(1)
    .describe("a served model (GET /v1/models), a `hint:<name>` route, or a [gateway] model_aliases name"),
  messages: z.array(MessageParamSchema).min(1).max(ANTHROPIC_MAX_MESSAGES),
  system: SystemSchema,
  tools: z
    .array(ToolSchema)
    .max(ANTHROPIC_MAX_TOOLS)
    .optional()
    .describe("tools the client runs: a call to one ends the answer with stop_reason tool_use"),
  tool_choice: ToolChoiceSchema.optional(),
};

export const MessagesRequestSchema = z
  .looseObject({
    ...MessagesFields,
    max_tokens: z.number().int().positive().describe("required, as Anthropic's API requires it"),
    stop_sequences: z
      .array(z.string().min(1).max(ANTHROPIC_STOP_SEQUENCE_MAX_CHARS))
      .max(ANTHROPIC_MAX_STOP_SEQUENCES)
      .optional()
      .describe("the answer's text ends before the first of these it contains (stop_reason stop_sequence)"),
    stream: z.boolean().optional(),
    temperature: z.number().min(0).max(1).optional(),
    top_p: z.number().min(0).max(1).optional(),
    top_k: z.number().int().nonnegative().optional(),
    metadata: z.looseObject({ user_id: z.string().max(ANTHROPIC_USER_ID_MAX_CHARS).nullable().optional() }).optional(),
  })
  .describe("Anthropic Messages request; the last message is the user's (text, images, or tool_result blocks)");
export type MessagesRequest = z.infer<typeof MessagesRequestSchema>;

export const CountTokensRequestSchema = z
  .looseObject(MessagesFields)
  .describe("the same fields as a Messages request, without max_tokens");
export type CountTokensRequest = z.infer<typeof CountTokensRequestSchema>;

export const CountTokensResponseSchema = z
  .object({ input_tokens: z.number().int().nonnegative() })
  .describe("estimated input tokens (one per 4 bytes of UTF-8, prx's own estimate; the provider's tokenizer may differ)");

const UsageSchema = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_creation_input_tokens: z.number().int().nonnegative().nullable(),
  cache_read_input_tokens: z.number().int().nonnegative().nullable(),
});
export type MessageUsage = z.infer<typeof UsageSchema>;

const ResponseTextSchema = z.object({ type: z.literal("text"), text: z.string() });
const ResponseToolUseSchema = z.object({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
});
export const StopReasonSchema = z.enum(["end_turn", "max_tokens", "stop_sequence", "tool_use"]);

export const MessageSchema = z
  .object({
    id: z.string().describe("msg_..."),
    type: z.literal("message"),
    role: z.literal("assistant"),
    content: z.array(z.union([ResponseTextSchema, ResponseToolUseSchema])),
    model: z.string(),
    stop_reason: StopReasonSchema,
    stop_sequence: z.string().nullable(),
    usage: UsageSchema,
  })
  .describe(
    "the assistant's message (with stream: true, SSE events message_start, content_block_start, " +
      "content_block_delta (text_delta, input_json_delta), content_block_stop, message_delta, message_stop and ping)",
  );
export type Message = z.infer<typeof MessageSchema>;

/** Anthropic's error body: `{"type": "error", "error": {"type", "message"}, "request_id"}`. */
export const AnthropicErrorBodySchema = z
  .object({
    type: z.literal("error"),
    error: z.object({
      type: z
        .string()
        .describe(
          "invalid_request_error (400 and other 4xx), authentication_error (401), permission_error (403), " +
            "not_found_error (404), request_too_large (413), rate_limit_error (429), api_error (500: a provider's " +
            "failure too), overloaded_error (529: not ready or shutting down)",
        ),
      message: z.string(),
    }),
    request_id: z.string().nullable(),
  })
  .describe("error, as Anthropic's API shapes it");
