import type { Awaitable } from "../../core/awaitable.ts";
import { errorMessage } from "../../core/errors.ts";
import type { SupervisedRedis } from "../../storage/redis/index.ts";
import type { RateDecision, RateLimiterApi } from "../types.ts";

/** Idle buckets expire after this many minutes of no request (a full bucket is the same as no bucket). */
const BUCKET_IDLE_MINUTES = 2;

/**
 * How long, in ms of the limit's refill, a replica's share of a busy bucket lasts: a take asks Redis for the tokens the
 * limit refills in this time (at least one) and serves the next requests of the key from them without a round trip.
 * A limit under two tokens in that time (2400 a minute) takes one token at a time, as exactly as a bucket in Redis can;
 * above it, the tokens a replica holds are the most another replica may find missing from the bucket for a while.
 */
export const RATE_RESERVATION_REFILL_MS = 50;
/** Tokens of a share not used within this many ms are given up (the shared bucket counts them as spent). */
export const RATE_RESERVATION_TTL_MS = 1000;
/** Keys holding a share at once; past it, expired shares are dropped, and all of them if none had expired. */
export const RATE_RESERVATIONS_MAX = 10_000;

/**
 * The token bucket of rate-limit.ts, in Redis: one hash per key (tokens, at), refilled and taken in one Lua script,
 * so every replica draws from the same bucket. Time is Redis's own clock (TIME), so replicas' clocks do not matter.
 * ARGV[2] tokens are asked for and as many as the bucket holds (at least one, at most that) are granted.
 */
const TAKE = `
local per_minute = tonumber(ARGV[1])
local want = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil then tokens = per_minute; at = now end
tokens = math.min(per_minute, tokens + (now - at) * per_minute / 60000)
local granted = 0
if tokens >= 1 then granted = math.min(want, math.floor(tokens)); tokens = tokens - granted end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], ${BUCKET_IDLE_MINUTES * 60_000})
if granted >= 1 then return {granted, 0} end
return {0, math.max(1, math.ceil((1 - tokens) / (per_minute / 60000) / 1000))}
`;

/** Redis's name for TAKE (the SHA-1 of its text): EVALSHA sends the name, not the ~700 bytes of the script. */
const TAKE_SHA1 = new Bun.CryptoHasher("sha1").update(TAKE).digest("hex");

/** The answer of EVALSHA for a script Redis does not hold (restarted, SCRIPT FLUSH, a new server). */
const NO_SCRIPT = /NOSCRIPT/;

const ALLOWED: RateDecision = { ok: true };

/** Tokens of a key's bucket granted to this replica and not used yet. */
interface Share {
  left: number;
  until: number;
}

export class RedisRateLimiter implements RateLimiterApi {
  /** Tokens asked for at a time (see RATE_RESERVATION_REFILL_MS). */
  private readonly batch: number;
  private readonly shares = new Map<string, Share>();

  constructor(
    private readonly redis: Pick<SupervisedRedis, "send">,
    private readonly keyPrefix: string,
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.batch = Math.max(1, Math.floor((perMinute * RATE_RESERVATION_REFILL_MS) / 60_000));
  }

  /** From this replica's share of the key's bucket when it holds one, else from Redis. */
  take(key: string): Awaitable<RateDecision> {
    if (this.batch > 1) {
      const share = this.shares.get(key);
      if (share !== undefined && share.left > 0 && this.now() < share.until) {
        share.left--;
        return ALLOWED;
      }
    }
    return this.ask(key);
  }

  /** By the script's name; the first take after Redis lost its scripts sends the text once (EVAL caches it). */
  private async ask(key: string): Promise<RateDecision> {
    const args = [`${this.keyPrefix}${key}`, String(this.perMinute), String(this.batch)];
    let answer: unknown;
    try {
      answer = await this.redis.send("EVALSHA", [TAKE_SHA1, "1", ...args]);
    } catch (error) {
      if (!NO_SCRIPT.test(errorMessage(error))) throw error;
      answer = await this.redis.send("EVAL", [TAKE, "1", ...args]);
    }
    const [granted, retryAfterS] = answer as [number, number];
    if (granted < 1) return { ok: false, retryAfterS };
    if (granted > 1) this.keep(key, granted - 1);
    return ALLOWED;
  }

  /** `tokens` more of the key's bucket held here (requests asking together each add what they were granted). */
  private keep(key: string, tokens: number): void {
    const now = this.now();
    const share = this.shares.get(key);
    if (share !== undefined && now < share.until) {
      share.left += tokens;
      return;
    }
    if (share === undefined && this.shares.size >= RATE_RESERVATIONS_MAX) {
      for (const [k, s] of this.shares) if (now >= s.until) this.shares.delete(k);
      if (this.shares.size >= RATE_RESERVATIONS_MAX) this.shares.clear();
    }
    this.shares.set(key, { left: tokens, until: now + RATE_RESERVATION_TTL_MS });
  }
}
