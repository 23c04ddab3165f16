import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PrxError } from "../../src/core/errors.ts";
import { z } from "zod";
import { jsonParser } from "../../src/gateway/body.ts";
import { routeSchema } from "../../src/gateway/route-schema.ts";
import { PAIRING_LOCKOUT_MS, PAIRING_MAX_FAILURES } from "../../src/gateway/limits.ts";
import { harness, tick, type Harness, json } from "./harness.ts";

describe("auth: bearer tokens", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness();
  });
  afterAll(() => h.close());

  test("/health, /pair and /swagger* are public; everything else needs a bearer token", async () => {
    expect((await h.call("/health", { auth: false })).status).toBe(200);
    expect((await h.call("/swagger/json", { auth: false })).status).toBe(200);
    for (const path of ["/api/status", "/api/sessions", "/metrics", "/v1/models", "/nope"]) {
      const response = await h.call(path, { auth: false });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer realm="prx"');
      expect(await json(response)).toMatchObject({
        error: { code: "UNAUTHORIZED", message: expect.stringContaining("missing Authorization") },
      });
    }
  });

  test("malformed, wrong and revoked tokens are 401 with a reason", async () => {
    const malformed = await h.call("/api/status", { auth: false, headers: { authorization: "Basic abc" } });
    expect((await json(malformed)).error.message).toContain("malformed Authorization");
    const wrong = await h.call("/api/status", { auth: "prx_notatoken" });
    expect((await json(wrong)).error.message).toContain("invalid or revoked");
    const { token, record } = h.auth.tokens.create("short-lived");
    expect((await h.call("/api/status", { auth: token })).status).toBe(200);
    h.auth.tokens.revoke(record.id);
    expect((await h.call("/api/status", { auth: token })).status).toBe(401);
  });

  test("every response carries x-request-id; a sane client id is echoed", async () => {
    const ok = await h.call("/health", { headers: { "x-request-id": "abc-123" } });
    expect(ok.headers.get("x-request-id")).toBe("abc-123");
    const denied = await h.call("/api/status", { auth: false });
    expect(denied.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await h.call("/nope");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const bogus = await h.call("/health", { headers: { "x-request-id": "x".repeat(200) } });
    expect(bogus.headers.get("x-request-id")).not.toBe("x".repeat(200));
  });
});

describe("auth: pairing", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ withToken: false });
  });
  afterAll(() => h.close());

  test("a code is opened only when no token exists, and works exactly once", async () => {
    const opened = await h.auth.openPairingIfUnpaired();
    expect(opened?.code).toMatch(/^[A-Z2-9]{8}$/);
    const response = await h.call("/pair", {
      method: "POST",
      auth: false,
      headers: { "x-pairing-code": opened!.code },
      client: "10.0.0.1",
    });
    expect(response.status).toBe(200);
    const { token, id } = await json(response);
    expect(id).toStartWith("tok_");
    expect((await h.call("/api/status", { auth: token })).status).toBe(200);
    const again = await h.call("/pair", {
      method: "POST",
      auth: false,
      headers: { "x-pairing-code": opened!.code },
      client: "10.0.0.1",
    });
    expect(again.status).toBe(403);
    expect(await h.auth.openPairingIfUnpaired()).toBeNull();
  });

  test("a missing code is 401", async () => {
    const response = await h.call("/pair", { method: "POST", auth: false, client: "10.0.0.9" });
    expect(response.status).toBe(401);
    expect((await json(response)).error.message).toContain("X-Pairing-Code");
  });

  test(`${PAIRING_MAX_FAILURES} wrong codes lock a client out for 5 minutes (fake clock); others are unaffected`, async () => {
    const { code } = await h.auth.pairing.issue();
    const wrong = code === "ABCDEFGH" ? "HGFEDCBA" : "ABCDEFGH";
    const attempt = (value: string, client: string) =>
      h.call("/pair", { method: "POST", auth: false, headers: { "x-pairing-code": value }, client });
    for (let i = 1; i < PAIRING_MAX_FAILURES; i++) {
      const response = await attempt(wrong, "10.0.0.66");
      expect(response.status).toBe(401);
      const left = PAIRING_MAX_FAILURES - i;
      const error = (await json(response)).error;
      expect(error.message).toContain(left === 1 ? "(1 attempt left before a lockout)" : `(${left} attempts left`);
      expect(error.hint).toContain("prx gateway token create");
    }
    const locked = await attempt(wrong, "10.0.0.66");
    expect(locked.status).toBe(429);
    expect(locked.headers.get("retry-after")).toBe(String(PAIRING_LOCKOUT_MS / 1000));
    expect((await json(locked)).error.hint).toContain("`prx gateway token create` prints a token at once");
    expect((await attempt(code, "10.0.0.66")).status).toBe(429);
    expect((await attempt(wrong, "10.0.0.67")).status).toBe(401);
    h.clock.advance(PAIRING_LOCKOUT_MS);
    const ok = await attempt(code, "10.0.0.66");
    expect(ok.status).toBe(200);
  });
});

describe("auth: pairing disabled", () => {
  test("require_pairing = false: no token needed, /pair says so", async () => {
    const h = await harness({ requirePairing: false, withToken: false });
    expect((await h.call("/api/status", { auth: false })).status).toBe(200);
    expect(
      (await h.call("/pair", { method: "POST", auth: false, headers: { "x-pairing-code": "ABCDEFGH" } })).status,
    ).toBe(409);
    await h.close();
  });
});

describe("rate limits", () => {
  test("per client address: the limit passes, one more is 429 with Retry-After; /health is exempt", async () => {
    const h = await harness({ gateway: { rate_limit_per_minute: 3, rate_limit_per_token_per_minute: 100 } });
    for (let i = 0; i < 3; i++) expect((await h.call("/api/status", { client: "10.1.1.1" })).status).toBe(200);
    const limited = await h.call("/api/status", { client: "10.1.1.1" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("20");
    expect((await json(limited)).error.message).toContain("3 requests per minute");
    expect((await h.call("/api/status", { client: "10.1.1.2" })).status).toBe(200);
    expect((await h.call("/health", { client: "10.1.1.1" })).status).toBe(200);
    h.clock.advance(20_000);
    expect((await h.call("/api/status", { client: "10.1.1.1" })).status).toBe(200);
    await h.close();
  });

  test("per credential: a token is limited across client addresses", async () => {
    const h = await harness({ gateway: { rate_limit_per_minute: 100, rate_limit_per_token_per_minute: 2 } });
    expect((await h.call("/api/status", { client: "10.2.0.1" })).status).toBe(200);
    expect((await h.call("/api/status", { client: "10.2.0.2" })).status).toBe(200);
    const limited = await h.call("/api/status", { client: "10.2.0.3" });
    expect(limited.status).toBe(429);
    expect((await json(limited)).error.message).toContain('token "test"');
    const other = h.auth.tokens.create("other").token;
    expect((await h.call("/api/status", { client: "10.2.0.3", auth: other })).status).toBe(200);
    await tick();
    const metrics = await (await h.call("/metrics", { auth: other })).text();
    expect(metrics).toContain('prx_http_requests_total{route="rejected",method="GET",status="429"} 1');
    await h.close();
  });
});

const EchoSchema = z.object({ say: z.string() });

describe("mounts (plugin subsystem extension point)", () => {
  test("mounted routes sit behind auth, JSON errors and x-request-id", async () => {
    const h = await harness({
      deps: {
        mounts: [
          (app) =>
            app
              .get("/api/plugins", () => Response.json({ plugins: ["demo"] }))
              .post("/api/plugins/echo", ({ body }) => Response.json(body), {
                body: routeSchema(EchoSchema),
                parse: jsonParser(64),
              })
              .get("/plugins/demo/boom", () => {
                throw new PrxError("PLUGIN_NOT_FOUND", "no plugin named demo2");
              }),
        ],
      },
    });
    expect((await h.call("/api/plugins", { auth: false })).status).toBe(401);
    const ok = await h.call("/api/plugins");
    expect(await json(ok)).toEqual({ plugins: ["demo"] });
    expect(ok.headers.get("x-request-id")).toBeTruthy();
    expect(await json(h.call("/api/plugins/echo", { json: { say: "hi" } }))).toEqual({ say: "hi" });
    expect((await h.call("/api/plugins/echo", { json: { say: "x".repeat(64) } })).status).toBe(413);
    expect(
      (
        await h.call("/api/plugins/echo", {
          method: "POST",
          body: "{",
          headers: { "content-type": "application/json" },
        })
      ).status,
    ).toBe(400);
    const boom = await h.call("/plugins/demo/boom");
    expect(boom.status).toBe(404);
    expect(await json(boom)).toEqual({ error: { code: "PLUGIN_NOT_FOUND", message: "no plugin named demo2" } });
    await tick();
    expect(await (await h.call("/metrics")).text()).toContain(
      'prx_http_requests_total{route="/api/plugins",method="GET",status="200"} 1',
    );
    await h.close();
  });
});
