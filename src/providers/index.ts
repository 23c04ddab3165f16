/** Public face of the providers subsystem. */
export * from "./types.ts";
export {
  createProviderResolver,
  isExternalProviderName,
  EXTERNAL_PROVIDER_PREFIXES,
  CUSTOM_PROVIDER_PREFIX,
} from "./resolver.ts";
export type { ProviderResolverOptions } from "./resolver.ts";
export { resolveModelChoice, HINT_PREFIX, OFFLINE_PROVIDER, type ModelChoice } from "./routes.ts";
export { OfflineProvider, offlineMemoryKey, OFFLINE_SETUP_HELP } from "./offline.ts";
export {
  OpenAICompatibleProvider,
  toOpenAIMessages,
  toOpenAITools,
  DEFAULT_PROVIDER_TIMEOUT_MS,
} from "./openai-compatible.ts";
export type { HttpProviderOptions } from "./openai-compatible.ts";
export { AnthropicProvider, ANTHROPIC_DEFAULT_MAX_TOKENS } from "./anthropic.ts";
export {
  withReliability,
  classifyFailure,
  isRetryableStatus,
  retryDelayMs,
  PROVIDER_RETRY_AFTER_MAX_MS,
  type ReliabilityOptions,
} from "./reliability.ts";
export { readSseEvents, readSseJson, PROVIDER_MAX_RESPONSE_BYTES } from "./sse.ts";
export type { SseEvent } from "./sse-parser.ts";
export { parseRetryAfter, PROVIDER_PROBE_TIMEOUT_MS } from "./http.ts";
export { PROVIDER_PRESETS } from "./presets.ts";
// The wire schemas (zod) load on first use: import them from ./openai-wire.ts / ./anthropic-wire.ts, or await these.
export { openaiWire, anthropicWire } from "./wire.ts";
export {
  modelFacts,
  bareModelName,
  UNKNOWN_MODEL_CONTEXT_WINDOW,
  UNKNOWN_MODEL_MAX_OUTPUT_TOKENS,
  type ModelFacts,
  type ModelPrices,
} from "./model-facts.ts";
