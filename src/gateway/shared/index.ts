import { RedisClient } from "bun";
import { errorMessage, PrxError } from "../../core/errors.ts";
import type { GatewayShared } from "../types.ts";
import { RedisPairingGate } from "./redis-pairing.ts";
import { RedisRateLimiter } from "./redis-rate-limit.ts";

export { RedisPairingGate } from "./redis-pairing.ts";
export { RedisRateLimiter } from "./redis-rate-limit.ts";

/** Rate limits and pairing shared by the replicas of one deployment, in the Redis of `[bus]`. */
export async function redisGatewayShared(
  url: string,
  prefix: string,
  pairingCodeTtlMs: number,
): Promise<GatewayShared & { ping(): Promise<void>; close(): void }> {
  const redis = new RedisClient(url, { autoReconnect: true });
  try {
    await redis.connect();
  } catch (cause) {
    throw new PrxError("BUS", `cannot connect to Redis for shared rate limits and pairing: ${errorMessage(cause)}`, {
      cause,
      hint: "check the URL in [bus] url_env and that Redis is running",
    });
  }
  return {
    pairing: new RedisPairingGate(redis, prefix, pairingCodeTtlMs),
    rateLimiter: (scope, perMinute) => new RedisRateLimiter(redis, `${prefix}:rate:${scope}:`, perMinute),
    ping: async () => void (await redis.send("PING", [])),
    close: () => redis.close(),
  };
}
