import { PrxError, isPrxError, toPrxError } from "../core/errors.ts";
import { createLogger } from "../core/logger.ts";
import { exponentialDelay } from "../core/supervise/backoff.ts";
import type { ChatRequest, ChatResponse, Provider, ProviderFailure } from "./types.ts";

/** Longest wait a Retry-After header can impose before a retry. */
export const PROVIDER_RETRY_AFTER_MAX_MS = 30_000;
/** Jitter added to each backoff, as a fraction of it. */
export const PROVIDER_BACKOFF_JITTER = 0.1;

const log = createLogger("providers.reliability");

export interface ReliabilityOptions {
  retries: number;
  backoff_ms: number;
  max_backoff_ms: number;
  /** Injectable for tests; must reject with the signal's reason when aborted. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

/**
 * What to do after a failed attempt:
 * - "retry": transient (network, timeout, 408, 429, 5xx) — try the same provider again after a backoff;
 * - "fallback": this provider will not do better now (other 4xx, bad key, protocol errors) — try the next one;
 * - "stop": nothing more to try (the caller aborted).
 */
export type FailureAction = "retry" | "fallback" | "stop";

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

export function classifyFailure(error: unknown): FailureAction {
  if (isPrxError(error, "ABORTED")) return "stop";
  if (error instanceof Error && error.name === "AbortError") return "stop";
  if (isPrxError(error, "PROVIDER_HTTP")) {
    const status = error.details?.status;
    return typeof status === "number" && isRetryableStatus(status) ? "retry" : "fallback";
  }
  if (isPrxError(error, "PROVIDER_UNREACHABLE") || isPrxError(error, "PROVIDER_TIMEOUT")) return "retry";
  return "fallback";
}

/**
 * Delay before retry number `attempt` (0-based): exponential from backoff_ms, capped at max_backoff_ms, plus
 * a little jitter; a Retry-After from the provider wins, capped at PROVIDER_RETRY_AFTER_MAX_MS.
 */
export function retryDelayMs(
  attempt: number,
  options: Pick<ReliabilityOptions, "backoff_ms" | "max_backoff_ms">,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), PROVIDER_RETRY_AFTER_MAX_MS);
  const base = exponentialDelay(attempt, { baseMs: options.backoff_ms, maxMs: options.max_backoff_ms });
  return Math.round(base + base * PROVIDER_BACKOFF_JITTER * random());
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function aborted(provider: string, cause: unknown): PrxError {
  return isPrxError(cause, "ABORTED") ? cause : new PrxError("ABORTED", `${provider}: request cancelled`, { cause });
}

/**
 * Retries and a fallback chain around a provider. Nothing is retried once a delta reached the caller
 * (it cannot be taken back), nor after the caller aborted.
 */
export function withReliability(primary: Provider, fallbacks: Provider[], options: ReliabilityOptions): Provider {
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  const chain = [primary, ...fallbacks];

  async function chat(request: ChatRequest): Promise<ChatResponse> {
    let emitted = false;
    const onDelta = request.onDelta
      ? (delta: Parameters<NonNullable<ChatRequest["onDelta"]>>[0]) => {
          emitted = true;
          request.onDelta!(delta);
        }
      : undefined;
    const failures: PrxError[] = [];
    const failed: ProviderFailure[] = [];
    for (const provider of chain) {
      // A fallback hears which providers failed before it (the offline provider tells the user).
      const asked = failed.length > 0 ? { ...request, failedProviders: [...(request.failedProviders ?? []), ...failed] } : request;
      for (let attempt = 0; ; attempt++) {
        if (request.signal?.aborted) throw aborted(provider.name, request.signal.reason);
        try {
          return await provider.chat(onDelta ? { ...asked, onDelta } : asked);
        } catch (thrown) {
          const error = toPrxError(thrown, "INTERNAL", provider.name);
          const action = request.signal?.aborted ? "stop" : classifyFailure(thrown);
          if (action === "stop") throw aborted(provider.name, error);
          if (emitted) throw error;
          if (action === "retry" && attempt < options.retries) {
            const after = error.details?.retryAfterMs;
            const delay = retryDelayMs(attempt, options, typeof after === "number" ? after : undefined, random);
            log.debug("retrying provider", { provider: provider.name, attempt: attempt + 1, delay, code: error.code });
            try {
              await sleep(delay, request.signal);
            } catch (cause) {
              throw aborted(provider.name, cause);
            }
            continue;
          }
          failures.push(error);
          failed.push({ provider: provider.name, message: error.message, ...(error.hint ? { hint: error.hint } : {}) });
          if (provider !== chain.at(-1)) {
            log.warn("provider failed, falling back", { provider: provider.name, error: error.message });
          }
          break;
        }
      }
    }
    throw combine(failures);
  }

  const wrapped: Provider = {
    name: primary.name,
    chat,
    chain,
    configProblem: () => primary.configProblem?.() ?? null,
  };
  // Vectors of different models do not mix: embeddings never fall back to another provider.
  if (primary.embed) wrapped.embed = (request) => primary.embed!(request);
  if (primary.transcribe) wrapped.transcribe = (request) => primary.transcribe!(request);
  if (primary.listModels) wrapped.listModels = () => primary.listModels!();
  if (primary.probe) wrapped.probe = (signal) => primary.probe!(signal);
  return wrapped;
}

/** One provider: its own error. Several: the first error's code, hint and details, naming every failure. */
function combine(failures: PrxError[]): PrxError {
  if (failures.length === 1) return failures[0]!;
  const first = failures[0]!;
  const summary = failures.map((failure) => failure.message).join("; then ");
  return new PrxError(first.code, `all providers failed: ${summary}`, {
    hint: first.hint,
    status: first.status,
    details: { ...first.details, failures: failures.map((f) => ({ code: f.code, message: f.message, ...f.details })) },
    cause: failures.at(-1),
  });
}
