/** Redis connections that survive outages (`[bus] backend = "redis"`): every user of Redis in prx opens one. */
export * from "./limits.ts";
export { SupervisedRedis } from "./connection.ts";
export type { RedisClientLike, RedisLinkStatus, SupervisedRedisOptions } from "./types.ts";
