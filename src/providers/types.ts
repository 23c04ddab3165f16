// the message types only: their schemas (contracts/chat.ts) build zod objects, which a provider never needs
export type { ChatMessage, MediaRef, ToolCall, ToolSpec, Usage } from "../contracts/chat.ts";
import type { ChatMessage, ToolCall, ToolSpec, Usage } from "../contracts/chat.ts";
import type { PrxError } from "../core/errors.ts";

/** Incremental output while a response streams. */
export type StreamDelta =
  | { type: "text"; text: string }
  | { type: "tool_call"; index: number; id?: string; name?: string; argumentsDelta?: string };

/** A provider that failed before the one asked now (what the reliability wrapper tells a fallback). */
export interface ProviderFailure {
  provider: string;
  message: string;
  hint?: string;
}

/** An answer format a provider asks of its model natively where its API has one (OpenAI's response_format). */
export type ResponseFormat =
  | { type: "json_object" }
  | { type: "json_schema"; name: string; schema: Record<string, unknown>; strict?: boolean; description?: string };

export interface ChatRequest {
  messages: ChatMessage[];
  model: string;
  temperature?: number;
  tools?: ToolSpec[];
  maxTokens?: number;
  /** The answer's format; providers without a native field leave it to the prompt (which says it too). */
  responseFormat?: ResponseFormat;
  signal?: AbortSignal;
  /** When set, the provider streams and calls this for each delta; the resolved response is still complete. */
  onDelta?: (delta: StreamDelta) => void;
  /** Set when this provider is asked as a fallback: the providers that failed before it, in order. */
  failedProviders?: ProviderFailure[];
}

export interface ChatResponse {
  text: string;
  toolCalls: ToolCall[];
  usage?: Usage;
  /** The model that actually answered (as reported by the provider when it says). */
  model: string;
  finishReason?: string;
  /** Name of the provider that answered (after fallback). */
  provider: string;
}

export interface EmbedRequest {
  /** Texts to embed, one vector each (in order). */
  input: string[];
  /** Length of the vectors, for models that can shorten theirs (OpenAI's text-embedding-3 models). */
  dimensions?: number;
  signal?: AbortSignal;
}

export interface EmbedResponse {
  embeddings: number[][];
  model: string;
  provider: string;
  /** Tokens of the input, when the provider says. */
  promptTokens?: number;
}

export interface TranscribeRequest {
  audio: Uint8Array;
  /** The type read from the bytes (audio/ogg, audio/mpeg, audio/wav, audio/mp4). */
  mime: string;
  signal?: AbortSignal;
}

export interface TranscribeResponse {
  text: string;
  model: string;
  provider: string;
}

export interface Provider {
  /** Configured name, e.g. "openai", "offline", "wasm:echo". */
  readonly name: string;
  chat(request: ChatRequest): Promise<ChatResponse>;
  /** Embeddings, on providers configured for them (`embedding_model`); absent otherwise. */
  embed?(request: EmbedRequest): Promise<EmbedResponse>;
  /** Speech to text, on providers configured for it (`transcription_model`); absent otherwise. */
  transcribe?(request: TranscribeRequest): Promise<TranscribeResponse>;
  /** Models this provider is known to serve, for /v1/models and doctor. */
  listModels?(): Promise<string[]>;
  /** Cheap reachability probe for `prx doctor` and /health. Resolves to an error message or null. */
  probe?(signal?: AbortSignal): Promise<string | null>;
  /**
   * A configuration problem that makes every call fail, found without the network (an `api_key_env` variable that
   * is not set): the error each call would throw, or null.
   */
  configProblem?(): PrxError | null;
  /** On the reliability wrapper: the providers it tries, in order (the primary, then the fallbacks). */
  readonly chain?: readonly Provider[];
}

/** Resolves names like "openai", "wasm:echo", "remote:plugin" to a provider (stable proxies for plugins). */
export interface ProviderResolver {
  resolve(name: string): Provider;
  names(): string[];
  /** Plugin providers ("wasm:<name>", "remote:<name>") served right now; they come and go with plugin generations. */
  pluginNames?(): string[];
}
