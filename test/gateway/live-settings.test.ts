/**
 * [gateway] settings a config reload changes while the gateway runs, each read where it is used: a rate limit
 * changed between two requests, and the idempotency TTL a key is stored with (on a clock the test moves).
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { LiveRateLimiter } from "../../src/gateway/live-rate-limit.ts";
import { RateLimiter } from "../../src/gateway/rate-limit.ts";
import { SqliteIdempotencyStore } from "../../src/storage/index.ts";

describe("settings that follow a reload", () => {
  test("a rate limit lowered between requests applies to the next one; raised, the next passes again", () => {
    let perMinute = 100;
    const clock = { t: 0 };
    const limiter = new LiveRateLimiter(() => perMinute, (limit) => new RateLimiter(limit, () => clock.t));
    expect(limiter.take("a")).toEqual({ ok: true });
    perMinute = 2;
    expect([limiter.take("a"), limiter.take("a")]).toEqual([{ ok: true }, { ok: true }]);
    expect(limiter.take("a")).toMatchObject({ ok: false });
    expect(limiter.perMinute).toBe(2);
    perMinute = 3;
    expect(limiter.take("a")).toEqual({ ok: true });
    expect(limiter.perMinute).toBe(3);
  });

  test("an idempotency key is kept for the TTL in effect when it is stored", () => {
    const db = new Database(":memory:");
    const clock = { t: 0 };
    let ttlMs = 1000;
    const store = new SqliteIdempotencyStore(db, () => ttlMs, () => clock.t);
    store.begin("s", "short", "h");
    ttlMs = 5000;
    store.begin("s", "long", "h");
    const expires = (key: string) => (db.query("SELECT expires_at AS at FROM gateway_idempotency WHERE key = ?").get(key) as { at: number }).at;
    expect(expires("short")).toBe(1000);
    expect(expires("long")).toBe(5000);
    db.close();
  });
});
