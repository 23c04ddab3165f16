import { isPrxError } from "../../core/errors.ts";
import type { Awaitable } from "../../core/awaitable.ts";
import { RateLimiter } from "../rate-limit.ts";
import type { RateDecision, RateLimiterApi } from "../types.ts";

/**
 * The limit shared in Redis while Redis answers; while it is away (or does not answer in time), this replica's own
 * buckets, so requests go on being served, and limited, through an outage instead of failing or waiting for Redis.
 */
export class RedisOrLocalRateLimiter implements RateLimiterApi {
  private readonly local: RateLimiter;

  constructor(
    private readonly shared: RateLimiterApi,
    private readonly redis: { readonly connected: boolean },
    now: () => number,
  ) {
    this.local = new RateLimiter(shared.perMinute, now);
  }

  get perMinute(): number {
    return this.shared.perMinute;
  }

  take(key: string): Awaitable<RateDecision> {
    if (!this.redis.connected) return this.local.take(key);
    return this.sharedOrLocal(key);
  }

  private async sharedOrLocal(key: string): Promise<RateDecision> {
    try {
      return await this.shared.take(key);
    } catch (error) {
      if (!isPrxError(error, "BUS")) throw error;
      return this.local.take(key);
    }
  }
}
