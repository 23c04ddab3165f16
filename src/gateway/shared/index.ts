import { RedisClient } from "bun";
import { errorMessage, PrxError } from "../../core/errors.ts";
import type { GatewayShared } from "../types.ts";
import { RedisPairingLockout } from "./redis-pairing-lockout.ts";
import { RedisRateLimiter } from "./redis-rate-limit.ts";

export { RedisPairingLockout } from "./redis-pairing-lockout.ts";
export { RedisRateLimiter } from "./redis-rate-limit.ts";

/** Rate limits and pairing lockouts shared by the replicas of one deployment, in the Redis of `[bus]`. */
export async function redisGatewayShared(
  url: string,
  prefix: string,
): Promise<GatewayShared & { ping(): Promise<void>; close(): void }> {
  const redis = new RedisClient(url, { autoReconnect: true });
  try {
    await redis.connect();
  } catch (cause) {
    throw new PrxError("BUS", `cannot connect to Redis for shared rate limits and pairing lockouts: ${errorMessage(cause)}`, {
      cause,
      hint: "check the URL in [bus] url_env and that Redis is running",
    });
  }
  return {
    pairingLockout: new RedisPairingLockout(redis, prefix),
    rateLimiter: (scope, perMinute) => new RedisRateLimiter(redis, `${prefix}:rate:${scope}:`, perMinute),
    ping: async () => void (await redis.send("PING", [])),
    close: () => redis.close(),
  };
}
