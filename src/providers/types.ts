import { z } from "zod";
import type { PrxError } from "../core/errors.ts";

/** Chat messages as stored in sessions and sent to providers (OpenAI-shaped, the lingua franca). */
export const ToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Raw JSON text of the arguments, exactly as the model produced it. */
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const ChatMessageSchema = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string(),
  tool_calls: z.array(ToolCallSchema).optional(),
  /** For role "tool": the id of the call this answers. */
  tool_call_id: z.string().optional(),
  /** For role "tool": the tool's name. */
  name: z.string().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

export const ToolSpecSchema = z.object({
  name: z.string().min(1),
  description: z.string(),
  /** JSON Schema of the arguments object. */
  parameters: z.record(z.string(), z.unknown()),
  /** OpenAI structured outputs for this tool's arguments (a client's tool may ask for it; passed on as given). */
  strict: z.boolean().optional(),
});
export type ToolSpec = z.infer<typeof ToolSpecSchema>;

export const UsageSchema = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof UsageSchema>;

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

export interface ChatRequest {
  messages: ChatMessage[];
  model: string;
  temperature?: number;
  tools?: ToolSpec[];
  maxTokens?: number;
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
  signal?: AbortSignal;
}

export interface EmbedResponse {
  embeddings: number[][];
  model: string;
  provider: string;
}

export interface Provider {
  /** Configured name, e.g. "openai", "offline", "wasm:echo". */
  readonly name: string;
  chat(request: ChatRequest): Promise<ChatResponse>;
  /** Embeddings, on providers configured for them (`embedding_model`); absent otherwise. */
  embed?(request: EmbedRequest): Promise<EmbedResponse>;
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
}
