import { errorMessage } from "../../core/errors.ts";
import type { SupervisedRedis } from "../../storage/redis/index.ts";
import type { RateDecision, RateLimiterApi } from "../types.ts";

/** Idle buckets expire after this many minutes of no request (a full bucket is the same as no bucket). */
const BUCKET_IDLE_MINUTES = 2;

/**
 * The token bucket of rate-limit.ts, in Redis: one hash per key (tokens, at), refilled and taken in one Lua script,
 * so every replica draws from the same bucket. Time is Redis's own clock (TIME), so replicas' clocks do not matter.
 */
const TAKE = `
local per_minute = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil then tokens = per_minute; at = now end
tokens = math.min(per_minute, tokens + (now - at) * per_minute / 60000)
local ok = 0
if tokens >= 1 then tokens = tokens - 1; ok = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], ${BUCKET_IDLE_MINUTES * 60_000})
if ok == 1 then return {1, 0} end
return {0, math.max(1, math.ceil((1 - tokens) / (per_minute / 60000) / 1000))}
`;

/** Redis's name for TAKE (the SHA-1 of its text): EVALSHA sends the name, not the ~700 bytes of the script. */
const TAKE_SHA1 = new Bun.CryptoHasher("sha1").update(TAKE).digest("hex");

/** The answer of EVALSHA for a script Redis does not hold (restarted, SCRIPT FLUSH, a new server). */
const NO_SCRIPT = /NOSCRIPT/;

export class RedisRateLimiter implements RateLimiterApi {
  constructor(
    private readonly redis: Pick<SupervisedRedis, "send">,
    private readonly keyPrefix: string,
    readonly perMinute: number,
  ) {}

  /** By the script's name; the first take after Redis lost its scripts sends the text once (EVAL caches it). */
  async take(key: string): Promise<RateDecision> {
    const args = [`${this.keyPrefix}${key}`, String(this.perMinute)];
    let answer: unknown;
    try {
      answer = await this.redis.send("EVALSHA", [TAKE_SHA1, "1", ...args]);
    } catch (error) {
      if (!NO_SCRIPT.test(errorMessage(error))) throw error;
      answer = await this.redis.send("EVAL", [TAKE, "1", ...args]);
    }
    const [ok, retryAfterS] = answer as [number, number];
    return ok === 1 ? { ok: true } : { ok: false, retryAfterS };
  }
}
