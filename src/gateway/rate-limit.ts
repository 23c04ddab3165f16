import { RATE_LIMIT_MAX_KEYS } from "./limits.ts";
import type { RateDecision, RateLimiterApi } from "./middleware/types.ts";

export type { RateDecision } from "./middleware/types.ts";

/**
 * Token bucket per key: `perMinute` requests of burst, refilled continuously at perMinute/60 per second.
 * The key map is bounded; when full, the least recently used key is dropped (it starts over with a full bucket).
 */
export class RateLimiter implements RateLimiterApi {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;

  constructor(
    readonly perMinute: number,
    private readonly now: () => number,
    private readonly maxKeys = RATE_LIMIT_MAX_KEYS,
  ) {
    this.perMs = perMinute / 60_000;
  }

  take(key: string): RateDecision {
    const now = this.now();
    let bucket = this.buckets.get(key);
    if (bucket) {
      this.buckets.delete(key);
      bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.perMs);
      bucket.at = now;
    } else {
      if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value!);
      bucket = { tokens: this.perMinute, at: now };
    }
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterS: Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000)) };
  }

  get size(): number {
    return this.buckets.size;
  }
}
