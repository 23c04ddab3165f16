import type { PrxError } from "../core/errors.ts";
import type { FetchLike, HttpTarget } from "./http.ts";
import { PROVIDER_PROBE_TIMEOUT_MS } from "./http.ts";
import { missingKeyProblem } from "./key-error.ts";
import { fetchModelIds, probeOutcome } from "./probe.ts";
import { PROVIDER_MAX_RESPONSE_BYTES, SSE_MAX_EVENT_BYTES } from "./sse.ts";
import type { ChatRequest, ChatResponse, Provider } from "./types.ts";

export interface HttpProviderOptions {
  name: string;
  baseUrl: string;
  /** Environment variable holding the key; when set and empty, requests fail fast. */
  keyEnv?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  headers?: Record<string, string>;
  maxTokens?: number;
  models?: string[];
  /** Model for POST /embeddings (OpenAI-compatible providers). */
  embeddingModel?: string;
  /** Model for POST /audio/transcriptions (OpenAI-compatible providers). */
  transcriptionModel?: string;
  fetch?: FetchLike;
  maxResponseBytes?: number;
}

export const DEFAULT_PROVIDER_TIMEOUT_MS = 120_000;

/** What every HTTP provider shares: its target, fetch, response cap, and the model-list endpoint (list and probe). */
export abstract class HttpProvider implements Provider {
  readonly name: string;
  protected readonly target: HttpTarget;
  protected readonly fetchImpl: FetchLike;

  constructor(protected readonly options: HttpProviderOptions) {
    this.name = options.name;
    this.target = { provider: options.name, keyEnv: options.keyEnv };
    this.fetchImpl = options.fetch ?? fetch;
  }

  abstract chat(request: ChatRequest): Promise<ChatResponse>;

  /** Request headers including the key; throws when the key's environment variable is empty. */
  protected abstract headers(): Record<string, string>;

  /** The authenticated, free model-list endpoint (also used as the reachability probe). */
  protected abstract modelsUrl(): string;

  protected maxBytes(): number {
    return this.options.maxResponseBytes ?? PROVIDER_MAX_RESPONSE_BYTES;
  }

  /** A streamed answer's largest line or event: SSE_MAX_EVENT_BYTES, or maxResponseBytes when lower. */
  protected maxEventBytes(): number {
    return Math.min(this.maxBytes(), SSE_MAX_EVENT_BYTES);
  }

  protected timeoutMs(): number {
    return this.options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS;
  }

  async listModels(): Promise<string[]> {
    if (this.options.models && this.options.models.length > 0) return [...this.options.models];
    return fetchModelIds(this.target, this.modelsUrl(), () => this.headers(), {
      fetch: this.fetchImpl,
      timeoutMs: this.timeoutMs(),
    });
  }

  /** The key's environment variable is named but not set: every call would fail. */
  configProblem(): PrxError | null {
    return missingKeyProblem(this.name, this.options.keyEnv, this.options.env);
  }

  /** GET the model list: free, authenticated, and answers 401 for a bad key. */
  probe(signal?: AbortSignal): Promise<string | null> {
    return probeOutcome(this.target, this.modelsUrl(), () => ({ headers: this.headers() }), {
      fetch: this.fetchImpl,
      timeoutMs: Math.min(this.timeoutMs(), PROVIDER_PROBE_TIMEOUT_MS),
      signal,
    });
  }
}
