import { z } from "zod";
import { EMBED_MAX_DIMENSIONS, EMBED_MAX_INPUTS } from "./openai-constants.ts";

/**
 * OpenAI Chat Completions wire format (requests, responses, stream chunks, errors, model lists).
 * Response schemas are lenient (unknown keys stripped, optional where compatible servers differ);
 * the fake server and the gateway's OpenAI API use the same schemas.
 */
export const OpenAIToolCallSchema = z.object({
  id: z.string(),
  type: z.literal("function").optional(),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

const ContentPartSchema = z.looseObject({ type: z.string(), text: z.string().optional() });

export const OpenAIRequestMessageSchema = z.object({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content: z.union([z.string(), z.array(ContentPartSchema)]).nullable().optional(),
  tool_calls: z.array(OpenAIToolCallSchema).optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});
export type OpenAIRequestMessage = z.infer<typeof OpenAIRequestMessageSchema>;

export const OpenAIToolSchema = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

export const OpenAIChatRequestSchema = z.object({
  model: z.string().min(1),
  messages: z.array(OpenAIRequestMessageSchema).min(1),
  stream: z.boolean().nullable().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullable().optional(),
  tools: z.array(OpenAIToolSchema).optional(),
  tool_choice: z.unknown().optional(),
  temperature: z.number().nullable().optional(),
  max_tokens: z.number().int().nullable().optional(),
  max_completion_tokens: z.number().int().nullable().optional(),
});
export type OpenAIChatRequest = z.infer<typeof OpenAIChatRequestSchema>;

export const OpenAIUsageSchema = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
  /** Cached prompt tokens (included in prompt_tokens); servers other than OpenAI's may send null or leave it out. */
  prompt_tokens_details: z.object({ cached_tokens: z.number().int().nonnegative().nullable().optional() }).nullable().optional(),
});

export const OpenAIChatResponseSchema = z.object({
  id: z.string().optional(),
  object: z.string().optional(),
  created: z.number().optional(),
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        index: z.number().int().optional(),
        message: z.object({
          role: z.string().optional(),
          content: z.string().nullable().optional(),
          tool_calls: z.array(OpenAIToolCallSchema).nullable().optional(),
        }),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .min(1),
  usage: OpenAIUsageSchema.nullable().optional(),
});
export type OpenAIChatResponse = z.infer<typeof OpenAIChatResponseSchema>;

export const OpenAIToolCallDeltaSchema = z.object({
  index: z.number().int().nonnegative(),
  id: z.string().nullable().optional(),
  type: z.literal("function").nullable().optional(),
  function: z
    .object({ name: z.string().nullable().optional(), arguments: z.string().nullable().optional() })
    .nullable()
    .optional(),
});

export const OpenAIChunkSchema = z.object({
  id: z.string().optional(),
  object: z.string().optional(),
  created: z.number().optional(),
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        index: z.number().int().optional(),
        delta: z
          .object({
            role: z.string().nullable().optional(),
            content: z.string().nullable().optional(),
            tool_calls: z.array(OpenAIToolCallDeltaSchema).nullable().optional(),
          })
          .nullable()
          .optional(),
        finish_reason: z.string().nullable().optional(),
      }),
    )
    .nullable()
    .optional(),
  usage: OpenAIUsageSchema.nullable().optional(),
  /** OpenRouter and some proxies report failures inside the stream. */
  error: z.object({ message: z.string().optional(), code: z.unknown().optional() }).loose().optional(),
});
export type OpenAIChunk = z.infer<typeof OpenAIChunkSchema>;

export const OpenAIErrorBodySchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string().nullable().optional(),
    param: z.string().nullable().optional(),
    code: z.union([z.string(), z.number()]).nullable().optional(),
  }),
});

export const OpenAIModelListSchema = z.object({
  object: z.string().optional(),
  data: z.array(z.object({ id: z.string(), object: z.string().optional(), owned_by: z.string().optional() })),
});

/** POST /embeddings answer (https://platform.openai.com/docs/api-reference/embeddings/object). */
export const OpenAIEmbeddingResponseSchema = z.object({
  object: z.string().optional(),
  data: z
    .array(
      z.object({
        object: z.string().optional(),
        index: z.number().int().nonnegative(),
        embedding: z.array(z.number()).min(1).max(EMBED_MAX_DIMENSIONS),
      }),
    )
    .max(EMBED_MAX_INPUTS),
  model: z.string().optional(),
  usage: z.object({ prompt_tokens: z.number(), total_tokens: z.number() }).optional(),
});

/** POST /audio/transcriptions answer with the default response_format "json". */
export const OpenAITranscriptionSchema = z.looseObject({ text: z.string() });
