import { estimateTokens } from "../../agent/prompt.ts";
import { PrxError, toPrxError } from "../../core/errors.ts";
import type { GatewayContext } from "../context.ts";
import { jsonResponse } from "../errors.ts";
import { modelNotFound } from "../openai/models.ts";
import type { EmbeddingsRequest, EmbeddingsResponse } from "./schemas.ts";

/** A vector as OpenAI's base64 encoding carries it: its float32 values, little-endian, in base64. */
export function base64Vector(vector: readonly number[]): string {
  const floats = new Float32Array(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString("base64");
}

/**
 * POST /v1/embeddings: the texts embedded by the provider whose `embedding_model` the request names (no fallback:
 * vectors of different models do not mix). A model that does not take `dimensions` is the upstream's 400.
 */
export async function createEmbeddings(gw: GatewayContext, body: EmbeddingsRequest, signal: AbortSignal): Promise<Response> {
  const owner = gw.models.embedder(body.model);
  if (owner === undefined) throw modelNotFound(body.model);
  const embed = gw.host.providers.resolve(owner).embed;
  if (!embed) {
    throw new PrxError("CONFIG_INVALID", `provider "${owner}" names embedding_model "${body.model}" but cannot embed`, {
      status: 503,
      hint: "embeddings are served by OpenAI-compatible providers",
    });
  }
  const input = typeof body.input === "string" ? [body.input] : body.input;
  const answer = await embed({ input, signal, ...(body.dimensions === undefined ? {} : { dimensions: body.dimensions }) }).catch(
    (thrown: unknown) => {
      const error = toPrxError(thrown);
      if (body.dimensions !== undefined && error.code === "PROVIDER_HTTP" && error.details?.status === 400) {
        throw new PrxError("BAD_REQUEST", `the embedding model "${body.model}" refused dimensions ${body.dimensions}: ${error.message}`, {
          hint: "leave dimensions out for this model (only some models, e.g. text-embedding-3-*, take it)",
          details: { param: "dimensions" },
          cause: error,
        });
      }
      throw error;
    },
  );
  const base64 = body.encoding_format === "base64";
  const tokens = answer.promptTokens ?? input.reduce((sum, text) => sum + estimateTokens(text), 0);
  const response: EmbeddingsResponse = {
    object: "list",
    data: answer.embeddings.map((vector, index) => ({
      object: "embedding",
      index,
      embedding: base64 ? base64Vector(vector) : vector,
    })),
    model: body.model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
  return jsonResponse(response);
}
