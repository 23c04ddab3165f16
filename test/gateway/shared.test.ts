/**
 * Rate limits and pairing shared by replicas through Redis: two gateway-side instances on one key prefix behave as
 * one. Real connections to the Redis of the development and CI machines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { PAIRING_MAX_FAILURES } from "../../src/gateway/limits.ts";
import { PrxError } from "../../src/core/errors.ts";
import { RedisOrLocalRateLimiter, RedisPairingGate, RedisRateLimiter } from "../../src/gateway/shared/index.ts";
import { testNeeding, TEST_REDIS_URL, uniquePrefix } from "../helpers/servers.ts";

const prefix = uniquePrefix("shared");
const testWithRedis = await testNeeding("redis");
let redis: RedisClient | null = null;

beforeAll(() => {
  if (testWithRedis === test) redis = new RedisClient(TEST_REDIS_URL);
});
afterAll(async () => {
  if (!redis) return;
  const keys = (await redis.send("KEYS", [`${prefix}:*`])) as string[];
  if (keys.length > 0) await redis.send("DEL", keys);
  redis.close();
});

const it = (name: string, body: (r: RedisClient) => Promise<void>) => testWithRedis(name, () => body(redis!));

describe("shared rate limits", () => {
  it("two replicas draw from one bucket: per_minute requests pass across both, the next is refused with Retry-After", async (r) => {
    const a = new RedisRateLimiter(r, `${prefix}:rate:client:`, 3);
    const b = new RedisRateLimiter(r, `${prefix}:rate:client:`, 3);
    expect(await a.take("10.0.0.1")).toEqual({ ok: true });
    expect(await b.take("10.0.0.1")).toEqual({ ok: true });
    expect(await a.take("10.0.0.1")).toEqual({ ok: true });
    const refused = await b.take("10.0.0.1");
    expect(refused.ok).toBe(false);
    expect(refused.ok === false && refused.retryAfterS).toBeGreaterThanOrEqual(1);
    // another key has its own bucket
    expect(await b.take("10.0.0.2")).toEqual({ ok: true });
  });
});

describe("shared pairing", () => {
  it("the code one replica printed works once through another", async (r) => {
    const a = new RedisPairingGate(r, `${prefix}:one`, 60_000);
    const b = new RedisPairingGate(r, `${prefix}:one`, 60_000);
    const { code } = await a.issue();
    expect(await b.attempt("c1", code)).toEqual({ ok: true });
    expect(await a.attempt("c2", code)).toEqual({ ok: false, reason: "closed" });
  });

  it(`wrong codes through any replica count together: ${PAIRING_MAX_FAILURES - 1} leave one attempt, the ${PAIRING_MAX_FAILURES}th locks the client out everywhere`, async (r) => {
    const a = new RedisPairingGate(r, `${prefix}:two`, 60_000);
    const b = new RedisPairingGate(r, `${prefix}:two`, 60_000);
    const { code } = await a.issue();
    const wrong = code === "000000" ? "000001" : "000000";
    for (let i = 1; i < PAIRING_MAX_FAILURES; i++) {
      const gate = i % 2 === 0 ? a : b;
      expect(await gate.attempt("evil", wrong)).toEqual({ ok: false, reason: "wrong", attemptsLeft: PAIRING_MAX_FAILURES - i });
    }
    const locked = await a.attempt("evil", wrong);
    expect(locked).toMatchObject({ ok: false, reason: "locked" });
    expect(await b.attempt("evil", code)).toMatchObject({ ok: false, reason: "locked" });
    // the right code still works for another client
    expect(await b.attempt("friend", code)).toEqual({ ok: true });
  });
});

describe("rate limits through a Redis outage", () => {
  const shared = (take: () => Promise<never>) => ({ perMinute: 2, take });
  const away = () => Promise.reject(new PrxError("BUS", "Redis is unreachable (test); reconnecting"));

  test("while Redis is away the replica's own bucket limits: per_minute requests pass, the next is refused", () => {
    const limiter = new RedisOrLocalRateLimiter(shared(away), { connected: false }, () => 0);
    expect(limiter.take("10.0.0.1")).toEqual({ ok: true });
    expect(limiter.take("10.0.0.1")).toEqual({ ok: true });
    expect(limiter.take("10.0.0.1")).toMatchObject({ ok: false });
  });

  test("a shared limit failing with BUS (Redis lost mid-request, or too slow) falls back to the own bucket; other errors pass", async () => {
    const limiter = new RedisOrLocalRateLimiter(shared(away), { connected: true }, () => 0);
    expect(await limiter.take("10.0.0.1")).toEqual({ ok: true });
    const broken = new RedisOrLocalRateLimiter(shared(() => Promise.reject(new Error("script bug"))), { connected: true }, () => 0);
    await expect(Promise.resolve(broken.take("10.0.0.1"))).rejects.toThrow("script bug");
  });
});
