import { Backoff, sleep } from "../core/supervise/index.ts";
import { PLATFORM_BACKOFF, PLATFORM_RETRY_AFTER_MAX_MS, PLATFORM_SEND_ATTEMPTS } from "./limits.ts";

/** A platform's retry_after (seconds) as milliseconds, capped at PLATFORM_RETRY_AFTER_MAX_MS. */
export function retryAfterMs(seconds: number | undefined, fallbackMs: number): number {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return fallbackMs;
  return Math.min(PLATFORM_RETRY_AFTER_MAX_MS, Math.ceil(seconds * 1000));
}

/**
 * Run `fn`, retrying errors that say they are retryable (`retryable: true`, waiting their `retryAfterMs` or the
 * backoff) up to PLATFORM_SEND_ATTEMPTS times in all.
 */
export async function withRetries<T>(
  fn: () => Promise<T>,
  signal?: AbortSignal,
  onRetry?: (error: unknown, waitMs: number) => void,
  backoff = new Backoff(PLATFORM_BACKOFF),
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      const e = error as { retryable?: boolean; retryAfterMs?: number };
      if (!e.retryable || attempt >= PLATFORM_SEND_ATTEMPTS || signal?.aborted) throw error;
      const wait = e.retryAfterMs ?? backoff.next();
      onRetry?.(error, wait);
      await sleep(wait, signal);
    }
  }
}
