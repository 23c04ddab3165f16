import { z } from "zod";
import { EMBEDDINGS_INPUT_MAX_CHARS, EMBEDDINGS_MAX_DIMENSIONS, EMBEDDINGS_MAX_INPUTS } from "../limits.ts";

/** OpenAI's embeddings wire (POST /v1/embeddings), as far as prx serves it. */

const Text = z.string().min(1, "an input text is not empty").max(EMBEDDINGS_INPUT_MAX_CHARS);
const TOKENS = "token arrays are not supported; send the texts";

export const EmbeddingsRequestSchema = z
  .looseObject({
    model: z.string().min(1).describe("a provider's embedding_model (GET /v1/models lists them)"),
    input: z
      .union([Text, z.array(Text).min(1).max(EMBEDDINGS_MAX_INPUTS)], {
        error: (issue) =>
          Array.isArray(issue.input) && issue.input.some((item) => typeof item !== "string")
            ? `input: ${TOKENS}`
            : typeof issue.input === "number"
              ? `input: ${TOKENS}`
              : undefined,
      })
      .describe(`a text or up to ${EMBEDDINGS_MAX_INPUTS} texts of at most ${EMBEDDINGS_INPUT_MAX_CHARS} characters each`),
    encoding_format: z.enum(["float", "base64"]).optional().describe("base64: little-endian float32 vectors"),
    dimensions: z
      .number()
      .int()
      .min(1)
      .max(EMBEDDINGS_MAX_DIMENSIONS)
      .optional()
      .describe("shorter vectors, for models that take it (the upstream model refuses otherwise: 400)"),
    user: z.string().optional(),
  })
  .describe("OpenAI-compatible embeddings request");
export type EmbeddingsRequest = z.infer<typeof EmbeddingsRequestSchema>;

export const EmbeddingsResponseSchema = z
  .object({
    object: z.literal("list"),
    data: z.array(
      z.object({
        object: z.literal("embedding"),
        index: z.number().int(),
        embedding: z.union([z.array(z.number()), z.string().describe("base64 of little-endian float32")]),
      }),
    ),
    model: z.string(),
    usage: z.object({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
  })
  .describe("one vector per input, in input order");
export type EmbeddingsResponse = z.infer<typeof EmbeddingsResponseSchema>;
