import { z } from "zod";
import { TOOL_NAME_PATTERN, TOOL_NAME_RULE } from "../../core/tool-names.ts";
import { USER_MESSAGE_MAX_CHARS, OPENAI_MAX_MESSAGES, OPENAI_MAX_TOOLS } from "../limits.ts";
import {
  RESPONSES_INPUT_ITEMS_DEFAULT,
  RESPONSES_INPUT_ITEMS_MAX,
  RESPONSES_METADATA_MAX_KEYS,
  RESPONSES_METADATA_KEY_MAX_CHARS,
  RESPONSES_METADATA_VALUE_MAX_CHARS,
} from "./limits.ts";

/**
 * The OpenAI Responses API wire format, as far as prx serves it. Unknown request fields are accepted and ignored,
 * except those whose silent loss would change the answer (built-in tools, background, conversation, prompt templates).
 */

const unsupported = (field: string, why: string) =>
  z
    .unknown()
    .refine((value) => value === undefined || value === null, { message: `${field} is not supported: ${why}` })
    .optional();

// ---------------------------------------------------------------- input items

export const InputTextPartSchema = z.object({ type: z.literal("input_text"), text: z.string().max(USER_MESSAGE_MAX_CHARS) });

export const InputImagePartSchema = z.looseObject({
  type: z.literal("input_image"),
  image_url: z.string().min(1).nullable().optional().describe("a data: or https: URL"),
  file_id: z.string().nullable().optional().describe("not supported: send image_url"),
  detail: z.enum(["auto", "low", "high"]).optional(),
});

export const OutputTextPartSchema = z.looseObject({ type: z.literal("output_text"), text: z.string().max(USER_MESSAGE_MAX_CHARS) });
export const RefusalPartSchema = z.looseObject({ type: z.literal("refusal"), refusal: z.string() });
const InputFilePartSchema = z.looseObject({ type: z.literal("input_file") });
const InputAudioPartSchema = z.looseObject({ type: z.literal("input_audio") });

export const ContentPartSchema = z.discriminatedUnion("type", [
  InputTextPartSchema,
  InputImagePartSchema,
  OutputTextPartSchema,
  RefusalPartSchema,
  InputFilePartSchema,
  InputAudioPartSchema,
]);
export type ContentPart = z.infer<typeof ContentPartSchema>;

export const MessageItemSchema = z.looseObject({
  type: z.literal("message").optional(),
  id: z.string().optional(),
  role: z.enum(["user", "system", "developer", "assistant"]),
  content: z.union([z.string().max(USER_MESSAGE_MAX_CHARS), z.array(ContentPartSchema)]),
  status: z.string().optional(),
});

export const FunctionCallItemSchema = z.looseObject({
  type: z.literal("function_call"),
  id: z.string().optional(),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  status: z.string().optional(),
});

export const FunctionCallOutputItemSchema = z.looseObject({
  type: z.literal("function_call_output"),
  id: z.string().nullable().optional(),
  call_id: z.string().min(1),
  output: z.union([z.string().max(USER_MESSAGE_MAX_CHARS), z.array(ContentPartSchema)]),
  status: z.string().nullable().optional(),
});

/** A reasoning item a client carries back (its encrypted content is for the model that wrote it): ignored. */
export const ReasoningItemSchema = z.looseObject({ type: z.literal("reasoning") });

/** An item of an earlier stored response, by its id. */
export const ItemReferenceSchema = z.looseObject({ type: z.literal("item_reference"), id: z.string().min(1) });

export const InputItemSchema = z.union([
  MessageItemSchema,
  FunctionCallItemSchema,
  FunctionCallOutputItemSchema,
  ReasoningItemSchema,
  ItemReferenceSchema,
]);
export type InputItem = z.infer<typeof InputItemSchema>;
export type MessageItem = z.infer<typeof MessageItemSchema>;

// ---------------------------------------------------------------- tools and options

export const FunctionToolSchema = z.looseObject({
  type: z.literal("function", {
    error: (issue) =>
      `tools of type "${String(issue.input)}" are not supported: prx offers the model its own tools and the ` +
      `client's tools of type "function"`,
  }),
  name: z.string().regex(TOOL_NAME_PATTERN, `a tool name is ${TOOL_NAME_RULE}`),
  description: z.string().nullable().optional(),
  parameters: z.record(z.string(), z.unknown()).nullable().optional(),
  strict: z.boolean().nullable().optional(),
});
export type FunctionTool = z.infer<typeof FunctionToolSchema>;

const TOOL_CHOICE_UNSUPPORTED = 'is not supported: prx runs its own tools between model calls; send "auto" (the default) or "none"';

export const ToolChoiceSchema = z.enum(["auto", "none"], {
  error: (issue) =>
    issue.input === "required"
      ? `tool_choice "required" ${TOOL_CHOICE_UNSUPPORTED}`
      : typeof issue.input === "object" && issue.input !== null
        ? `a named or restricted tool_choice ${TOOL_CHOICE_UNSUPPORTED}`
        : 'tool_choice must be "auto" or "none"',
});

export const TextFormatSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text") }),
  z.looseObject({ type: z.literal("json_object") }),
  z.looseObject({
    type: z.literal("json_schema"),
    name: z.string().min(1),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().nullable().optional(),
    strict: z.boolean().nullable().optional(),
  }),
]);
export type TextFormat = z.infer<typeof TextFormatSchema>;

/** `include` values prx accepts: those it can leave out of an answer without changing it. */
export const IGNORED_INCLUDES = ["reasoning.encrypted_content"] as const;

export const MetadataSchema = z
  .record(z.string().max(RESPONSES_METADATA_KEY_MAX_CHARS), z.string().max(RESPONSES_METADATA_VALUE_MAX_CHARS))
  .refine((value) => Object.keys(value).length <= RESPONSES_METADATA_MAX_KEYS, {
    message: `metadata holds at most ${RESPONSES_METADATA_MAX_KEYS} keys`,
  });

export const CreateResponseRequestSchema = z
  .looseObject({
    model: z
      .string()
      .min(1)
      .describe("a served model (GET /v1/models), a `hint:<name>` route, or a [gateway] model_aliases name"),
    input: z
      .union([z.string().max(USER_MESSAGE_MAX_CHARS), z.array(InputItemSchema).min(1).max(OPENAI_MAX_MESSAGES)])
      .describe("a user message, or items: messages, function_call, function_call_output, item_reference"),
    instructions: z.string().max(USER_MESSAGE_MAX_CHARS).nullable().optional().describe("a system message for this response only"),
    previous_response_id: z.string().min(1).nullable().optional().describe("continue from a stored response"),
    store: z.boolean().nullable().optional().describe("keep the response for previous_response_id (default true)"),
    stream: z.boolean().nullable().optional(),
    stream_options: z.looseObject({ include_obfuscation: z.boolean().optional() }).nullable().optional(),
    tools: z
      .array(FunctionToolSchema)
      .max(OPENAI_MAX_TOOLS)
      .nullable()
      .optional()
      .describe("tools the client runs: a call to one ends the response with a function_call output item"),
    tool_choice: ToolChoiceSchema.nullable().optional(),
    parallel_tool_calls: z.boolean().nullable().optional(),
    max_output_tokens: z.number().int().positive().nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    top_p: z.number().min(0).max(1).nullable().optional(),
    metadata: MetadataSchema.nullable().optional(),
    text: z
      .looseObject({ format: TextFormatSchema.nullable().optional(), verbosity: z.string().nullable().optional() })
      .nullable()
      .optional(),
    include: z
      .array(
        z.enum(IGNORED_INCLUDES, {
          error: (issue) => `include "${String(issue.input)}" is not supported (accepted: ${IGNORED_INCLUDES.join(", ")})`,
        }),
      )
      .nullable()
      .optional()
      .describe("accepted and ignored: reasoning.encrypted_content"),
    reasoning: z.looseObject({}).nullable().optional().describe("accepted and ignored"),
    user: z.string().nullable().optional(),
    truncation: z.enum(["auto", "disabled"]).nullable().optional(),
    background: z
      .boolean()
      .nullable()
      .optional()
      .refine((value) => value !== true, { message: "background is not supported: prx answers within the request" }),
    conversation: unsupported("conversation", "chain responses with previous_response_id"),
    prompt: unsupported("prompt", "send the text as input and instructions"),
  })
  .describe("OpenAI Responses API request");
export type CreateResponseRequest = z.infer<typeof CreateResponseRequestSchema>;

export const InputItemsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(RESPONSES_INPUT_ITEMS_MAX).default(RESPONSES_INPUT_ITEMS_DEFAULT),
  order: z.enum(["asc", "desc"]).default("desc"),
  after: z.string().optional(),
  before: z.string().optional(),
});

// ---------------------------------------------------------------- the response object

export const OutputTextSchema = z.object({
  type: z.literal("output_text"),
  text: z.string(),
  annotations: z.array(z.unknown()),
  logprobs: z.array(z.unknown()),
});

export const OutputMessageSchema = z.object({
  id: z.string(),
  type: z.literal("message"),
  status: z.enum(["in_progress", "completed", "incomplete"]),
  role: z.literal("assistant"),
  content: z.array(OutputTextSchema),
});
export type OutputMessage = z.infer<typeof OutputMessageSchema>;

export const OutputFunctionCallSchema = z.object({
  id: z.string(),
  type: z.literal("function_call"),
  status: z.enum(["in_progress", "completed", "incomplete"]),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
});
export type OutputFunctionCall = z.infer<typeof OutputFunctionCallSchema>;

export const OutputItemSchema = z.union([OutputMessageSchema, OutputFunctionCallSchema]);
export type OutputItem = z.infer<typeof OutputItemSchema>;

export const ResponseUsageSchema = z.object({
  input_tokens: z.number().int(),
  input_tokens_details: z.object({ cached_tokens: z.number().int() }),
  output_tokens: z.number().int(),
  output_tokens_details: z.object({ reasoning_tokens: z.number().int() }),
  total_tokens: z.number().int(),
});

export const ResponseObjectSchema = z
  .object({
    id: z.string().describe("resp_..."),
    object: z.literal("response"),
    created_at: z.number().int(),
    status: z.enum(["completed", "failed", "in_progress", "incomplete"]),
    background: z.literal(false),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    incomplete_details: z.object({ reason: z.string() }).nullable(),
    instructions: z.string().nullable(),
    max_output_tokens: z.number().int().nullable(),
    metadata: z.record(z.string(), z.string()),
    model: z.string(),
    output: z.array(OutputItemSchema),
    parallel_tool_calls: z.boolean(),
    previous_response_id: z.string().nullable(),
    reasoning: z.object({ effort: z.null(), summary: z.null() }),
    store: z.boolean(),
    temperature: z.number().nullable(),
    text: z.object({ format: z.record(z.string(), z.unknown()) }),
    tool_choice: z.enum(["auto", "none"]),
    tools: z.array(z.record(z.string(), z.unknown())),
    top_p: z.number().nullable(),
    truncation: z.enum(["auto", "disabled"]),
    usage: ResponseUsageSchema.nullable(),
    user: z.string().nullable(),
  })
  .describe("response (with stream: true, typed SSE events ending with response.completed or response.failed)");
export type ResponseObject = z.infer<typeof ResponseObjectSchema>;

export const DeletedResponseSchema = z
  .object({ id: z.string(), object: z.literal("response"), deleted: z.literal(true) })
  .describe("the response is deleted");

/** An input item as stored and listed: the request's item with an id. */
export const StoredInputItemSchema = z.looseObject({ id: z.string(), type: z.string() });
export type StoredInputItem = z.infer<typeof StoredInputItemSchema>;

export const InputItemListSchema = z
  .object({
    object: z.literal("list"),
    data: z.array(StoredInputItemSchema),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
    has_more: z.boolean(),
  })
  .describe("the input items of a stored response");

// ---------------------------------------------------------------- streaming events

const seq = { sequence_number: z.number().int() };
const at = { output_index: z.number().int() };
const part = { item_id: z.string(), output_index: z.number().int(), content_index: z.number().int() };

export const ResponseStreamEventSchema = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("response.created"), response: ResponseObjectSchema, ...seq }),
    z.object({ type: z.literal("response.in_progress"), response: ResponseObjectSchema, ...seq }),
    z.object({ type: z.literal("response.output_item.added"), item: OutputItemSchema, ...at, ...seq }),
    z.object({ type: z.literal("response.content_part.added"), part: OutputTextSchema, ...part, ...seq }),
    z.object({
      type: z.literal("response.output_text.delta"),
      delta: z.string(),
      logprobs: z.array(z.unknown()),
      ...part,
      ...seq,
    }),
    z.object({
      type: z.literal("response.output_text.done"),
      text: z.string(),
      logprobs: z.array(z.unknown()),
      ...part,
      ...seq,
    }),
    z.object({ type: z.literal("response.content_part.done"), part: OutputTextSchema, ...part, ...seq }),
    z.object({
      type: z.literal("response.function_call_arguments.delta"),
      item_id: z.string(),
      delta: z.string(),
      ...at,
      ...seq,
    }),
    z.object({
      type: z.literal("response.function_call_arguments.done"),
      item_id: z.string(),
      name: z.string(),
      arguments: z.string(),
      ...at,
      ...seq,
    }),
    z.object({ type: z.literal("response.output_item.done"), item: OutputItemSchema, ...at, ...seq }),
    z.object({ type: z.literal("response.completed"), response: ResponseObjectSchema, ...seq }),
    z.object({ type: z.literal("response.failed"), response: ResponseObjectSchema, ...seq }),
    z.object({ type: z.literal("response.incomplete"), response: ResponseObjectSchema, ...seq }),
    z.object({
      type: z.literal("error"),
      code: z.string().nullable(),
      message: z.string(),
      param: z.string().nullable(),
      ...seq,
    }),
  ])
  .describe("one server-sent event: `event: <type>` and `data: <this object>`");
export type ResponseStreamEvent = z.infer<typeof ResponseStreamEventSchema>;
/** An event before the writer numbers it. */
export type UnnumberedEvent = ResponseStreamEvent extends infer E ? (E extends unknown ? Omit<E, "sequence_number"> : never) : never;
