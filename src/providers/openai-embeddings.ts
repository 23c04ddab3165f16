import { PrxError } from "../core/errors.ts";
import { joinUrl, protocolError, ProviderCall, type FetchLike, type HttpTarget } from "./http.ts";
import { EMBED_MAX_INPUTS } from "./openai-constants.ts";
import { excerpt } from "./response-errors.ts";
import type { EmbedRequest, EmbedResponse } from "./types.ts";
import { openaiWire } from "./wire.ts";

export interface EmbeddingEndpoint {
  target: HttpTarget;
  baseUrl: string;
  model: string;
  timeoutMs: number;
  maxBytes: number;
  fetch: FetchLike;
  headers(): Record<string, string>;
}

/** POST {base_url}/embeddings as OpenAI and compatible servers answer it: one vector per input, in input order. */
export async function embedOpenAI(endpoint: EmbeddingEndpoint, request: EmbedRequest): Promise<EmbedResponse> {
  const provider = endpoint.target.provider;
  if (request.input.length === 0 || request.input.length > EMBED_MAX_INPUTS) {
    const message = `${provider}: embeddings take 1-${EMBED_MAX_INPUTS} inputs, got ${request.input.length}`;
    throw new PrxError("BAD_REQUEST", message, { hint: "split the texts into batches" });
  }
  const url = joinUrl(endpoint.baseUrl, "embeddings");
  const call = new ProviderCall(endpoint.target, endpoint.timeoutMs, request.signal);
  try {
    const dimensions = request.dimensions === undefined ? {} : { dimensions: request.dimensions };
    const body = JSON.stringify({ model: endpoint.model, input: request.input, encoding_format: "float", ...dimensions });
    const response = await call.fetch(endpoint.fetch, url, { method: "POST", headers: endpoint.headers(), body });
    const json = await call.readJson(response, url, endpoint.maxBytes);
    const parsed = (await openaiWire()).OpenAIEmbeddingResponseSchema.safeParse(json);
    if (!parsed.success) {
      throw protocolError(provider, `unexpected embeddings answer from ${url}: ${excerpt(JSON.stringify(json))}`);
    }
    const vectors: Array<number[] | undefined> = Array.from({ length: request.input.length }, () => undefined);
    for (const item of parsed.data.data) {
      if (item.index < vectors.length) vectors[item.index] = item.embedding;
    }
    if (vectors.includes(undefined)) {
      const count = parsed.data.data.length;
      throw protocolError(provider, `${url} answered ${count} embeddings for ${request.input.length} inputs`);
    }
    const wrong = request.dimensions === undefined ? undefined : vectors.find((vector) => vector!.length !== request.dimensions);
    if (wrong) throw protocolError(provider, `${url} answered vectors of ${wrong.length} dimensions, ${request.dimensions} were asked`);
    const tokens = parsed.data.usage?.prompt_tokens;
    return { embeddings: vectors as number[][], model: parsed.data.model ?? endpoint.model, provider, ...(tokens === undefined ? {} : { promptTokens: tokens }) };
  } catch (error) {
    throw call.fail(error, url);
  } finally {
    call.dispose();
  }
}
