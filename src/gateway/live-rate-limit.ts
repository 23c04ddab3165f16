import type { RateDecision, RateLimiterApi } from "./middleware/types.ts";

/**
 * A rate limit that follows the configuration: each request reads the limit in effect; when a reload changed it,
 * a limiter of the new limit takes over (this process's buckets start over full; Redis keeps its own).
 */
export class LiveRateLimiter implements RateLimiterApi {
  private limiter: RateLimiterApi;

  constructor(
    private readonly limit: () => number,
    private readonly make: (perMinute: number) => RateLimiterApi,
  ) {
    this.limiter = make(limit());
  }

  get perMinute(): number {
    return this.limiter.perMinute;
  }

  take(key: string): RateDecision | Promise<RateDecision> {
    const perMinute = this.limit();
    if (perMinute !== this.limiter.perMinute) this.limiter = this.make(perMinute);
    return this.limiter.take(key);
  }
}
