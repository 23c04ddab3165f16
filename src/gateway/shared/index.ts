import type { Logger } from "../../core/logger.ts";
import { SupervisedRedis, type RedisLinkStatus } from "../../storage/redis/index.ts";
import type { GatewayShared } from "../types.ts";
import { RedisOrLocalRateLimiter } from "./outage-rate-limit.ts";
import { RedisPairingLockout } from "./redis-pairing-lockout.ts";
import { RedisRateLimiter } from "./redis-rate-limit.ts";

export { RedisPairingLockout } from "./redis-pairing-lockout.ts";
export { RedisRateLimiter } from "./redis-rate-limit.ts";
export { RedisOrLocalRateLimiter } from "./outage-rate-limit.ts";

export interface RedisGatewayShared extends GatewayShared {
  /** PING, answered within the command timeout; BUS at once while Redis is away. */
  ping(): Promise<void>;
  link(): RedisLinkStatus;
  close(): void;
}

/**
 * Rate limits and pairing lockouts shared by the replicas of one deployment, in the Redis of `[bus]`. Through an
 * outage the connection is made again by itself; meanwhile rate limits are this replica's own and pairing answers 503.
 */
export async function redisGatewayShared(url: string, prefix: string, logger: Logger): Promise<RedisGatewayShared> {
  const redis = new SupervisedRedis({ url, logger, purpose: "shared rate limits and pairing lockouts" });
  await redis.open();
  return {
    pairingLockout: new RedisPairingLockout(redis, prefix),
    rateLimiter: (scope, perMinute) =>
      new RedisOrLocalRateLimiter(new RedisRateLimiter(redis, `${prefix}:rate:${scope}:`, perMinute), redis, Date.now),
    ping: async () => void (await redis.send("PING", [])),
    link: () => redis.snapshot(),
    close: () => redis.close(),
  };
}
