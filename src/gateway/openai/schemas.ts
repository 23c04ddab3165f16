import { z } from "zod";
import { isOptionalString, isPlainObject, withFastAccept } from "../../core/fast-accept.ts";
import { lazy } from "../../core/lazy.ts";
import { MESSAGE_MAX_CHARS, OPENAI_MAX_MESSAGES } from "../limits.ts";

/** The OpenAI Chat Completions wire format, as far as prx serves it. Unknown request fields are accepted and ignored. */

export const OpenAIMessageSchema = lazy(() =>
  z.looseObject({
    role: z.enum(["system", "developer", "user", "assistant", "tool"]),
    content: z
      .union([
        z.string().max(MESSAGE_MAX_CHARS),
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
  }),
);
export type OpenAIMessage = z.infer<ReturnType<typeof OpenAIMessageSchema>>;

export const ChatCompletionRequestSchema = lazy(() =>
  z
    .looseObject({
      model: z
        .string()
        .min(1)
        .describe("a configured model, `hint:<name>` route, or anything (then the default model)"),
      messages: z.array(OpenAIMessageSchema()).min(1).max(OPENAI_MAX_MESSAGES),
      stream: z.boolean().nullable().optional(),
      stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
      temperature: z.number().min(0).max(2).nullable().optional(),
      max_tokens: z.number().int().positive().nullable().optional(),
      user: z.string().optional(),
    })
    .describe("OpenAI-compatible chat completion request; the last message must be from the user"),
);

export type ChatCompletionRequest = z.infer<ReturnType<typeof ChatCompletionRequestSchema>>;

const ROLES: ReadonlySet<unknown> = new Set(["system", "developer", "user", "assistant", "tool"]);
const isOptionalNumber = (v: unknown, ok: (n: number) => boolean) =>
  v === undefined || v === null || (typeof v === "number" && ok(v));

/**
 * The common request (text messages, optional stream/temperature/max_tokens/user) checked by hand; anything
 * else, tool calls and content parts included, goes through ChatCompletionRequestSchema.
 */
export function isPlainChatCompletionRequest(value: unknown): value is ChatCompletionRequest {
  if (!isPlainObject(value)) return false;
  const { model, messages, stream, stream_options, temperature, max_tokens, user } = value;
  if (typeof model !== "string" || model.length === 0) return false;
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > OPENAI_MAX_MESSAGES) return false;
  for (const message of messages) {
    if (!isPlainObject(message) || !ROLES.has(message.role)) return false;
    if (typeof message.content !== "string" || message.content.length > MESSAGE_MAX_CHARS) return false;
    if (!isOptionalString(message.name) || message.tool_calls !== undefined || message.tool_call_id !== undefined)
      return false;
  }
  return (
    (stream === undefined || stream === null || typeof stream === "boolean") &&
    stream_options === undefined &&
    isOptionalNumber(temperature, (t) => t >= 0 && t <= 2) &&
    isOptionalNumber(max_tokens, (n) => Number.isSafeInteger(n) && n > 0) &&
    isOptionalString(user)
  );
}

export const ChatCompletionRequestParser = lazy(() =>
  withFastAccept(ChatCompletionRequestSchema(), isPlainChatCompletionRequest),
);

const UsageSchema = lazy(() =>
  z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() }),
);

export const ChatCompletionSchema = lazy(() =>
  z
    .object({
      id: z.string(),
      object: z.literal("chat.completion"),
      created: z.number().int(),
      model: z.string(),
      choices: z.array(
        z.object({
          index: z.number().int(),
          message: z.object({ role: z.literal("assistant"), content: z.string(), refusal: z.null() }),
          finish_reason: z.literal("stop"),
          logprobs: z.null(),
        }),
      ),
      usage: UsageSchema(),
    })
    .describe(
      "chat completion (with stream: true, `data:` chunks of object chat.completion.chunk, then `data: [DONE]`)",
    ),
);
export type ChatCompletion = z.infer<ReturnType<typeof ChatCompletionSchema>>;

export const ChatCompletionChunkSchema = lazy(() =>
  z.object({
    id: z.string(),
    object: z.literal("chat.completion.chunk"),
    created: z.number().int(),
    model: z.string(),
    choices: z.array(
      z.object({
        index: z.number().int(),
        delta: z.object({ role: z.literal("assistant").optional(), content: z.string().optional() }),
        finish_reason: z.literal("stop").nullable(),
      }),
    ),
    usage: UsageSchema().nullable().optional(),
  }),
);
export type ChatCompletionChunk = z.infer<ReturnType<typeof ChatCompletionChunkSchema>>;

export const ModelListSchema = lazy(() =>
  z
    .object({
      object: z.literal("list"),
      data: z.array(
        z.object({ id: z.string(), object: z.literal("model"), created: z.number().int(), owned_by: z.string() }),
      ),
    })
    .describe("models: the default, every configured provider model, and each hint:<name> route"),
);
