import { describe, expect, test } from "bun:test";
import { rateLimit } from "../../../src/gateway/middleware/rate-limit.ts";
import type { RateLimiterApi } from "../../../src/gateway/middleware/types.ts";
import { RateLimiter } from "../../../src/gateway/rate-limit.ts";
import { get, middlewareApp } from "./app.ts";

describe("rateLimit", () => {
  test("per client: the limit passes, one more is 429 with Retry-After and is recorded as rejected; exempt paths are never counted", async () => {
    let now = 0;
    const { app, recorded } = middlewareApp();
    let handled = 0;
    const served = app
      .use(rateLimit({ scope: "client", limiter: new RateLimiter(2, () => now), exempt: ["/health"] }))
      .get("/x", () => (handled++, "ok"))
      .get("/health", () => "ok");
    for (let i = 0; i < 5; i++) expect((await served.handle(get("/health"))).status).toBe(200);
    expect((await served.handle(get("/x"))).status).toBe(200);
    expect((await served.handle(get("/x"))).status).toBe(200);
    const refused = await served.handle(get("/x"));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("30");
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("exceeded for 127.0.0.1");
    expect(handled).toBe(2);
    expect(recorded.map((r) => `${r.route} ${r.status}`)).toEqual(["rejected 429"]);
    // another client has its own bucket; the first one's refills with the clock
    expect((await served.handle(get("/x", { "x-test-client": "10.0.0.2" }))).status).toBe(200);
    now += 30_000;
    expect((await served.handle(get("/x"))).status).toBe(200);
  });

  test("a limiter that answers later (shared in Redis) is waited for", async () => {
    const answers = [{ ok: true as const }, { ok: false as const, retryAfterS: 7 }];
    const later: RateLimiterApi = { perMinute: 1, take: async () => answers.shift()! };
    const { app } = middlewareApp();
    const served = app.use(rateLimit({ scope: "client", limiter: later })).get("/x", () => "ok");
    expect((await served.handle(get("/x"))).status).toBe(200);
    const refused = await served.handle(get("/x"));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("7");
  });

  test("per token: a request without a token credential is not counted", async () => {
    const counted: string[] = [];
    const limiter: RateLimiterApi = { perMinute: 1, take: (key) => (counted.push(key), { ok: true }) };
    const { app } = middlewareApp();
    const served = app.use(rateLimit({ scope: "token", limiter })).get("/x", () => "ok");
    expect((await served.handle(get("/x"))).status).toBe(200);
    expect(counted).toEqual([]);
  });
});
