import { z } from "zod";
import { TOOL_NAME_PATTERN, TOOL_NAME_RULE } from "../../core/tool-names.ts";
import { USER_MESSAGE_MAX_CHARS, OPENAI_MAX_MESSAGES, OPENAI_MAX_TOOLS } from "../limits.ts";

/**
 * The OpenAI Chat Completions wire format, as far as prx serves it. Unknown request fields are accepted and ignored,
 * except those whose silent loss would change the answer (legacy `functions`, unsupported `tool_choice` values).
 */

export const OpenAIMessageSchema = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content: z
    .union([
      z.string().max(USER_MESSAGE_MAX_CHARS),
      z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
      z.null(),
    ])
    .optional(),
  name: z.string().optional(),
  tool_calls: z
    .array(
      z.looseObject({
        id: z.string(),
        type: z.literal("function").optional(),
        function: z.object({ name: z.string(), arguments: z.string() }),
      }),
    )
    .optional(),
  tool_call_id: z.string().optional(),
});
export type OpenAIMessage = z.infer<typeof OpenAIMessageSchema>;

/** `{"type": "image_url", "image_url": {"url": <data: or https: URL>, "detail"?: "auto" | "low" | "high"}}` */
export const ImageUrlPartSchema = z.looseObject({
  type: z.literal("image_url"),
  image_url: z.looseObject({ url: z.string().min(1), detail: z.enum(["auto", "low", "high"]).optional() }),
});

/** `{"type": "input_audio", "input_audio": {"data": <base64>, "format": "wav" | "mp3" | ...}}` */
export const InputAudioPartSchema = z.looseObject({
  type: z.literal("input_audio"),
  input_audio: z.looseObject({ data: z.string().min(1), format: z.string().min(1) }),
});

/** A tool the client runs itself: `{type: "function", function: {name, description?, parameters?, strict?}}`. */
export const ClientToolSchema = z.looseObject({
  type: z.literal("function", { error: 'only tools of type "function" are supported' }),
  function: z.looseObject({
    name: z.string().regex(TOOL_NAME_PATTERN, `a tool name is ${TOOL_NAME_RULE}`),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});
export type ClientTool = z.infer<typeof ClientToolSchema>;

const NOT_SUPPORTED =
  'is not supported: prx runs its own tools between model calls; send tool_choice "auto" (the default) or "none"';

/** `response_format`: the answer is checked against it (and asked of the upstream model natively where it can be). */
const ChatResponseFormatSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text") }),
  z.looseObject({ type: z.literal("json_object") }),
  z.looseObject({
    type: z.literal("json_schema"),
    json_schema: z.looseObject({
      name: z.string().min(1).max(64),
      schema: z.record(z.string(), z.unknown()),
      description: z.string().nullable().optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

export const ChatCompletionRequestSchema = z
  .looseObject({
    model: z
      .string()
      .min(1)
      .describe("a served model (GET /v1/models), a `hint:<name>` route, or a [gateway] model_aliases name"),
    messages: z.array(OpenAIMessageSchema).min(1).max(OPENAI_MAX_MESSAGES),
    tools: z
      .array(ClientToolSchema)
      .max(OPENAI_MAX_TOOLS)
      .nullable()
      .optional()
      .describe("tools the client runs: a call to one ends the answer with finish_reason tool_calls"),
    tool_choice: z
      .enum(["auto", "none"], {
        error: (issue) =>
          issue.input === "required"
            ? `tool_choice "required" ${NOT_SUPPORTED}`
            : typeof issue.input === "object" && issue.input !== null
              ? `a named tool_choice ${NOT_SUPPORTED}`
              : 'tool_choice must be "auto" or "none"',
      })
      .nullable()
      .optional(),
    parallel_tool_calls: z.boolean().nullable().optional(),
    functions: z
      .unknown()
      .refine((value) => value === undefined || value === null, {
        message: "the legacy functions field is not supported; send tools",
      })
      .optional(),
    function_call: z
      .unknown()
      .refine((value) => value === undefined || value === null, {
        message: "the legacy function_call field is not supported; send tool_choice",
      })
      .optional(),
    stream: z.boolean().nullable().optional(),
    stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    max_tokens: z.number().int().positive().nullable().optional(),
    max_completion_tokens: z.number().int().positive().nullable().optional().describe("the newer name of max_tokens; wins over it"),
    response_format: ChatResponseFormatSchema.nullable().optional(),
    user: z.string().optional(),
  })
  .describe("OpenAI-compatible chat completion request; the last message is the user's, or tool results");

export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

export type ChatResponseFormat = z.infer<typeof ChatResponseFormatSchema>;

const ToolCallWireSchema = z.object({
  id: z.string(),
  type: z.literal("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

const FinishReasonSchema = z.enum(["stop", "tool_calls"]);

const UsageSchema = z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() });

export const ChatCompletionSchema = z
  .object({
    id: z.string(),
    object: z.literal("chat.completion"),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        message: z.object({
          role: z.literal("assistant"),
          content: z.string().nullable().describe("null when the answer is only tool calls"),
          refusal: z.null(),
          tool_calls: z.array(ToolCallWireSchema).optional().describe("calls of the client's tools, to run"),
        }),
        finish_reason: FinishReasonSchema,
        logprobs: z.null(),
      }),
    ),
    usage: UsageSchema,
  })
  .describe(
    "chat completion (with stream: true, `data:` chunks of object chat.completion.chunk, then `data: [DONE]`)",
  );
export type ChatCompletion = z.infer<typeof ChatCompletionSchema>;

export const ChatCompletionChunkSchema = z.object({
  id: z.string(),
  object: z.literal("chat.completion.chunk"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      delta: z.object({
        role: z.literal("assistant").optional(),
        content: z.string().nullable().optional(),
        refusal: z.null().optional(),
        tool_calls: z
          .array(
            z.object({
              index: z.number().int(),
              id: z.string().optional(),
              type: z.literal("function").optional(),
              function: z.object({ name: z.string().optional(), arguments: z.string().optional() }),
            }),
          )
          .optional(),
      }),
      logprobs: z.null().optional(),
      finish_reason: FinishReasonSchema.nullable(),
    }),
  ),
  usage: UsageSchema.nullable().optional(),
});
export type ChatCompletionChunk = z.infer<typeof ChatCompletionChunkSchema>;

export const ModelListSchema = z
  .object({
    object: z.literal("list"),
    data: z.array(
      z.object({ id: z.string(), object: z.literal("model"), created: z.number().int(), owned_by: z.string() }),
    ),
  })
  .describe("models: the default, every configured provider model, and each hint:<name> route");
