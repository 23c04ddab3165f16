import { joinUrl, protocolError, ProviderCall } from "./http.ts";
import type { EmbeddingEndpoint } from "./openai-embeddings.ts";
import { excerpt } from "./response-errors.ts";
import type { TranscribeRequest, TranscribeResponse } from "./types.ts";
import { openaiWire } from "./wire.ts";

const EXTENSION: Record<string, string> = {
  "audio/ogg": "ogg",
  "audio/mpeg": "mp3",
  "audio/wav": "wav",
  "audio/mp4": "m4a",
};

/**
 * POST {base_url}/audio/transcriptions as OpenAI documents it: multipart/form-data with the audio as `file` (its
 * name's extension tells the format) and `model`; the answer is `{"text": ...}`.
 */
export async function transcribeOpenAI(endpoint: EmbeddingEndpoint, request: TranscribeRequest): Promise<TranscribeResponse> {
  const provider = endpoint.target.provider;
  const url = joinUrl(endpoint.baseUrl, "audio/transcriptions");
  const call = new ProviderCall(endpoint.target, endpoint.timeoutMs, request.signal);
  try {
    const form = new FormData();
    const name = `audio.${EXTENSION[request.mime] ?? "bin"}`;
    form.append("file", new Blob([request.audio], { type: request.mime }), name);
    form.append("model", endpoint.model);
    form.append("response_format", "json");
    // fetch sets the multipart content type with its boundary
    const { "content-type": _json, ...headers } = endpoint.headers();
    const response = await call.fetch(endpoint.fetch, url, { method: "POST", headers, body: form });
    const json = await call.readJson(response, url, endpoint.maxBytes);
    const parsed = (await openaiWire()).OpenAITranscriptionSchema.safeParse(json);
    if (!parsed.success) {
      throw protocolError(provider, `unexpected transcription answer from ${url}: ${excerpt(JSON.stringify(json))}`);
    }
    return { text: parsed.data.text, model: endpoint.model, provider };
  } catch (error) {
    throw call.fail(error, url);
  } finally {
    call.dispose();
  }
}
