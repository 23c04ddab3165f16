import { PLATFORM_BACKOFF_BASE_MS, PLATFORM_BACKOFF_MAX_MS, PLATFORM_RETRY_AFTER_MAX_MS, PLATFORM_SEND_ATTEMPTS } from "./limits.ts";

/** Resolves after `ms`, or at once when `signal` aborts (a stopping channel does not wait out its backoff). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Exponential backoff with jitter: the n-th wait (from 0) lies between half and all of
 * min(PLATFORM_BACKOFF_MAX_MS, PLATFORM_BACKOFF_BASE_MS * 2^n).
 */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly baseMs = PLATFORM_BACKOFF_BASE_MS,
    private readonly maxMs = PLATFORM_BACKOFF_MAX_MS,
    /** A number in [0, 1) (tests pin it). */
    private readonly random: () => number = Math.random,
  ) {}

  next(): number {
    const ceiling = Math.min(this.maxMs, this.baseMs * 2 ** this.attempt);
    this.attempt += 1;
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  reset(): void {
    this.attempt = 0;
  }

  get failures(): number {
    return this.attempt;
  }
}

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
  backoff = new Backoff(),
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
