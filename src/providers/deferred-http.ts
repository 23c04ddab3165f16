import type { PrxError } from "../core/errors.ts";
import type { HttpProviderOptions } from "./http-provider.ts";
import { missingKeyProblem } from "./key-error.ts";
import type { ChatRequest, ChatResponse, EmbedRequest, EmbedResponse, Provider, TranscribeRequest, TranscribeResponse } from "./types.ts";

export type HttpProviderKind = "openai-compatible" | "openai-responses" | "anthropic";

/**
 * An OpenAI-compatible, OpenAI Responses or Anthropic provider whose implementation (HTTP client, SSE reader, request mapping) loads
 * with its first call: resolving providers at start (every host does, to fail early on a bad name) costs nothing
 * for the ones a command never calls. It answers as the real provider does; what needs no network (its name,
 * whether it embeds, a missing key) it answers itself.
 */
export class DeferredHttpProvider implements Provider {
  readonly name: string;
  /** Present when `embedding_model` is configured on an OpenAI-compatible provider (see Provider.embed). */
  readonly embed?: (request: EmbedRequest) => Promise<EmbedResponse>;
  /** Present when `transcription_model` is configured on an OpenAI-compatible provider (see Provider.transcribe). */
  readonly transcribe?: (request: TranscribeRequest) => Promise<TranscribeResponse>;
  private loaded: Promise<Provider> | undefined;

  constructor(
    private readonly kind: HttpProviderKind,
    private readonly options: HttpProviderOptions,
  ) {
    this.name = options.name;
    if (kind !== "anthropic" && options.embeddingModel) this.embed = async (request) => (await this.load()).embed!(request);
    if (kind !== "anthropic" && options.transcriptionModel) {
      this.transcribe = async (request) => (await this.load()).transcribe!(request);
    }
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    return (await this.load()).chat(request);
  }

  async listModels(): Promise<string[]> {
    return (await this.load()).listModels!();
  }

  async probe(signal?: AbortSignal): Promise<string | null> {
    return (await this.load()).probe!(signal);
  }

  /** The key's environment variable is named but not set: every call would fail (as HttpProvider.configProblem). */
  configProblem(): PrxError | null {
    return missingKeyProblem(this.name, this.options.keyEnv, this.options.env);
  }

  private load(): Promise<Provider> {
    return (this.loaded ??=
      this.kind === "anthropic"
        ? import("./anthropic.ts").then((m) => new m.AnthropicProvider(this.options))
        : this.kind === "openai-responses"
          ? import("./openai-responses.ts").then((m) => new m.OpenAIResponsesProvider(this.options))
          : import("./openai-compatible.ts").then((m) => new m.OpenAICompatibleProvider(this.options)));
  }
}
