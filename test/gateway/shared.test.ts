/**
 * Rate limits and pairing shared by replicas: two gateway-side instances on one Redis key prefix and one workspace
 * database behave as one. Real connections to the Redis of the development and CI machines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PrxError } from "../../src/core/errors.ts";
import { PairingGate } from "../../src/gateway/auth/index.ts";
import { PAIRING_CODE_MAX_WRONG, PAIRING_MAX_FAILURES } from "../../src/gateway/limits.ts";
import { RedisOrLocalRateLimiter, RedisPairingLockout, RedisRateLimiter } from "../../src/gateway/shared/index.ts";
import { RATE_RESERVATION_REFILL_MS, RATE_RESERVATION_TTL_MS, RATE_RESERVATIONS_MAX } from "../../src/gateway/shared/redis-rate-limit.ts";
import { openSqliteStorage, type SqliteStorage } from "../../src/storage/index.ts";
import { testNeeding, TEST_REDIS_URL, uniquePrefix } from "../helpers/servers.ts";

const prefix = uniquePrefix("shared");
const testWithRedis = await testNeeding("redis");
let redis: RedisClient | null = null;
const dir = mkdtempSync(join(tmpdir(), "prx-shared-"));
const dbPath = join(dir, "prx.db");
const opened: SqliteStorage[] = [];

beforeAll(() => {
  if (testWithRedis === test) redis = new RedisClient(TEST_REDIS_URL);
});
afterAll(async () => {
  for (const storage of opened) await storage.close();
  rmSync(dir, { recursive: true, force: true });
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

  it("a take names the script (EVALSHA); from a Redis that does not hold it (restarted, flushed), the text goes once", async (r) => {
    const sent: string[] = [];
    let forgotten = true;
    // the real server, asked by a name it holds no script under while `forgotten`: it answers NOSCRIPT itself
    const redis = {
      send(command: string, args: string[]) {
        sent.push(command);
        if (command === "EVALSHA" && forgotten) return r.send(command, ["0".repeat(40), ...args.slice(1)]);
        return r.send(command, args);
      },
    };
    const limiter = new RedisRateLimiter(redis, `${prefix}:rate:sha:`, 2);
    expect(await limiter.take("10.0.0.3")).toEqual({ ok: true });
    expect(sent).toEqual(["EVALSHA", "EVAL"]);
    forgotten = false;
    expect(await limiter.take("10.0.0.3")).toEqual({ ok: true });
    expect((await limiter.take("10.0.0.3")).ok).toBe(false);
    expect(sent).toEqual(["EVALSHA", "EVAL", "EVALSHA", "EVALSHA"]);
  });
});

describe("a replica's share of a busy shared limit", () => {
  /** `r`, counting the scripts it runs. */
  const counting = (r: RedisClient) => {
    const calls = { n: 0 };
    return { calls, redis: { send: (command: string, args: string[]) => (calls.n++, r.send(command, args)) } };
  };
  const perMinuteAt = (tokens: number) => (tokens * 60_000) / RATE_RESERVATION_REFILL_MS;

  it(`a limit of two tokens per RATE_RESERVATION_REFILL_MS (${perMinuteAt(2)} a minute) asks Redis for every other request; one less, for each`, async (r) => {
    const busy = counting(r);
    const limiter = new RedisRateLimiter(busy.redis, `${prefix}:rate:share:`, perMinuteAt(2));
    for (let i = 0; i < 10; i++) expect(await limiter.take("10.0.1.1")).toEqual({ ok: true });
    expect(busy.calls.n).toBe(5);
    const exact = counting(r);
    const one = new RedisRateLimiter(exact.redis, `${prefix}:rate:share:`, perMinuteAt(2) - 1);
    for (let i = 0; i < 10; i++) expect(await one.take("10.0.1.2")).toEqual({ ok: true });
    expect(exact.calls.n).toBe(10);
  });

  it(`a share not used within RATE_RESERVATION_TTL_MS (${RATE_RESERVATION_TTL_MS} ms) is given up: the next request asks Redis`, async (r) => {
    let now = 1_000_000;
    const busy = counting(r);
    const limiter = new RedisRateLimiter(busy.redis, `${prefix}:rate:share:`, perMinuteAt(4), () => now);
    expect(await limiter.take("10.0.1.3")).toEqual({ ok: true }); // asks: 4 granted, 3 held
    now += RATE_RESERVATION_TTL_MS - 1;
    expect(limiter.take("10.0.1.3")).toEqual({ ok: true }); // from the share, no round trip (a plain answer)
    expect(busy.calls.n).toBe(1);
    now += 1;
    expect(await limiter.take("10.0.1.3")).toEqual({ ok: true });
    expect(busy.calls.n).toBe(2);
  });

  test(`at most RATE_RESERVATIONS_MAX (${RATE_RESERVATIONS_MAX}) keys hold a share: one more key and the unexpired shares are given up`, async () => {
    // a Redis that grants every token asked for (the sends counted per key)
    const asked = new Map<string, number>();
    const redis = {
      send: async (_command: string, args: string[]) => {
        asked.set(args[2]!, (asked.get(args[2]!) ?? 0) + 1);
        return [Number(args[4]), 0];
      },
    };
    const limiter = new RedisRateLimiter(redis, "k:", perMinuteAt(4), () => 5_000);
    for (let i = 0; i < RATE_RESERVATIONS_MAX; i++) await limiter.take(`key-${i}`);
    expect(limiter.take("key-0")).toEqual({ ok: true }); // at the limit: still held, no round trip
    expect(asked.get("k:key-0")).toBe(1);
    await limiter.take(`key-${RATE_RESERVATIONS_MAX}`); // one past: the shares held are given up
    expect(await limiter.take("key-0")).toEqual({ ok: true });
    expect(asked.get("k:key-0")).toBe(2);
  });

  it("replicas sharing a bucket never pass more requests than it grants", async (r) => {
    const key = `${prefix}:rate:drain:10.0.1.4`;
    const perMinute = perMinuteAt(4);
    const a = new RedisRateLimiter(r, `${prefix}:rate:drain:`, perMinute);
    const b = new RedisRateLimiter(r, `${prefix}:rate:drain:`, perMinute);
    // a bucket that held 6 tokens a moment ago (Redis's clock), refilling perMinute / 60000 a ms
    const [seconds, micros] = (await r.send("TIME", [])) as [string, string];
    const at = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    await r.send("HSET", [key, "tokens", "6", "at", String(at)]);
    let passed = 0;
    for (let i = 0; i < 8; i++) if ((await (i % 2 === 0 ? a : b).take("10.0.1.4")).ok) passed++;
    const [s2, m2] = (await r.send("TIME", [])) as [string, string];
    const refilled = Math.floor(((Number(s2) * 1000 + Math.floor(Number(m2) / 1000) - at) * perMinute) / 60_000);
    expect(passed).toBeGreaterThanOrEqual(6);
    expect(passed).toBeLessThanOrEqual(6 + refilled);
  });
});

/** A replica's pairing gate: its own connection to the shared workspace database, the shared Redis lockouts. */
function replica(r: RedisClient, scope: string): PairingGate {
  const storage = openSqliteStorage(dbPath);
  opened.push(storage);
  return new PairingGate(storage.gatewayPairing, new RedisPairingLockout(r, `${prefix}:${scope}`), 60_000, Date.now);
}

const wrongFor = (code: string) => (code === "ABCDEFGH" ? "HGFEDCBA" : "ABCDEFGH");

describe("shared pairing", () => {
  it("the code one replica printed works once through another", async (r) => {
    const a = replica(r, "one");
    const b = replica(r, "one");
    const { code } = await a.issue();
    expect(await b.attempt("c1", code)).toEqual({ ok: true });
    expect(await a.attempt("c2", code)).toEqual({ ok: false, reason: "closed" });
  });

  it(`wrong codes through any replica count together: ${PAIRING_MAX_FAILURES - 1} leave one attempt, the ${PAIRING_MAX_FAILURES}th locks the client out everywhere`, async (r) => {
    const a = replica(r, "two");
    const b = replica(r, "two");
    const { code } = await a.issue();
    for (let i = 1; i < PAIRING_MAX_FAILURES; i++) {
      const gate = i % 2 === 0 ? a : b;
      expect(await gate.attempt("evil", wrongFor(code))).toEqual({ ok: false, reason: "wrong", attemptsLeft: PAIRING_MAX_FAILURES - i });
    }
    const locked = await a.attempt("evil", wrongFor(code));
    expect(locked).toMatchObject({ ok: false, reason: "locked" });
    expect(await b.attempt("evil", code)).toMatchObject({ ok: false, reason: "locked" });
    // the right code still works for another client
    expect(await b.attempt("friend", code)).toEqual({ ok: true });
  });

  it(`the code's budget of ${PAIRING_CODE_MAX_WRONG} wrong guesses holds across replicas and addresses: one more burns it on every replica`, async (r) => {
    const a = replica(r, "three");
    const b = replica(r, "three");
    const { code } = await a.issue();
    for (let i = 0; i < PAIRING_CODE_MAX_WRONG; i++)
      expect(await (i % 2 ? a : b).attempt(`10.0.${i}.1`, wrongFor(code))).toMatchObject({ reason: "wrong" });
    expect(await b.attempt("10.1.0.1", wrongFor(code))).toEqual({ ok: false, reason: "burned" });
    expect(await a.attempt("10.1.0.2", code)).toEqual({ ok: false, reason: "burned" });
    expect(await b.attempt("10.1.0.3", code)).toEqual({ ok: false, reason: "burned" });
    const fresh = await b.issue();
    expect(await a.attempt("10.1.0.3", fresh.code)).toEqual({ ok: true });
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
