import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isPrxError } from "../../src/core/errors.ts";
import { sha256Hex } from "../../src/core/ids.ts";
import { MemoryPairingLockout, PairingGate } from "../../src/gateway/auth/index.ts";
import { UNAMBIGUOUS_ALPHABET } from "../../src/core/random-code.ts";
import { SqliteGatewayPairingStore } from "../../src/storage/sqlite/gateway-pairing.ts";
import { SqliteTokenStore as TokenStore, TOKEN_PREFIX } from "../../src/storage/index.ts";
import { jsonParser, readLimited } from "../../src/gateway/body.ts";
import { SqliteIdempotencyStore as IdempotencyStore } from "../../src/storage/index.ts";
import {
  IDEMPOTENCY_KEY_MAX_BYTES,
  IDEMPOTENCY_PENDING_TIMEOUT_MS,
  PAIRING_CODE_LENGTH,
  PAIRING_CODE_MAX_WRONG,
  PAIRING_LOCKOUT_MS,
  PAIRING_MAX_FAILURES,
  TOKEN_BYTES,
  TOKEN_NAME_MAX_CHARS,
} from "../../src/gateway/limits.ts";
import { GatewayMetrics, METRIC_MAX_SERIES, Counter } from "../../src/gateway/metrics.ts";
import { toTurnMessages } from "../../src/gateway/openai/convert.ts";

import { RateLimiter } from "../../src/gateway/rate-limit.ts";
import { isLoopback } from "../../src/gateway/bind.ts";
import { ConfigSchema } from "../../src/config/schema.ts";

function fakeClock(start = 1_000_000) {
  const clock = { t: start, now: () => clock.t };
  return clock;
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("RateLimiter", () => {
  test("allows exactly perMinute in a burst, then 429 with Retry-After, refills over time", () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(3, clock.now);
    expect([limiter.take("a"), limiter.take("a"), limiter.take("a")].every((d) => d.ok)).toBe(true);
    const denied = limiter.take("a");
    expect(denied).toEqual({ ok: false, retryAfterS: 20 });
    expect(limiter.take("b").ok).toBe(true);
    clock.t += 20_000;
    expect(limiter.take("a").ok).toBe(true);
    expect(limiter.take("a").ok).toBe(false);
  });

  test("key map is bounded: the least recently used key is evicted", () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(1, clock.now, 2);
    limiter.take("a");
    limiter.take("b");
    limiter.take("c");
    expect(limiter.size).toBe(2);
    expect(limiter.take("a").ok).toBe(true); // forgotten, starts with a full bucket
    expect(limiter.take("c").ok).toBe(false);
  });
});

function pairingGate(ttlMs: number, now: () => number): PairingGate {
  return new PairingGate(new SqliteGatewayPairingStore(new Database(":memory:"), now), new MemoryPairingLockout(now), ttlMs, now);
}

/** A code that differs from `code`, of its length and alphabet. */
function wrongFor(code: string): string {
  return code === "ABCDEFGH" ? "HGFEDCBA" : "ABCDEFGH";
}

describe("PairingGate", () => {
  test(`code has ${PAIRING_CODE_LENGTH} characters of the unambiguous alphabet, any case, and works once`, async () => {
    const clock = fakeClock();
    const gate = pairingGate(60_000, clock.now);
    const { code } = await gate.issue();
    expect(code).toMatch(new RegExp(`^[${UNAMBIGUOUS_ALPHABET}]{${PAIRING_CODE_LENGTH}}$`));
    expect(await gate.attempt("c", ` ${code.toLowerCase()} `)).toEqual({ ok: true });
    expect(await gate.attempt("c2", code)).toEqual({ ok: false, reason: "closed" });
  });

  test("expires after the ttl", async () => {
    const clock = fakeClock();
    const gate = pairingGate(60_000, clock.now);
    const { code } = await gate.issue();
    clock.t += 60_000;
    expect(await gate.attempt("c", code)).toEqual({ ok: false, reason: "closed" });
  });

  test(`${PAIRING_MAX_FAILURES - 1} wrong codes pass, the ${PAIRING_MAX_FAILURES}th locks out for ${PAIRING_LOCKOUT_MS / 60_000} minutes`, async () => {
    const clock = fakeClock();
    const gate = pairingGate(3_600_000, clock.now);
    const { code } = await gate.issue();
    const wrong = wrongFor(code);
    for (let i = 1; i < PAIRING_MAX_FAILURES; i++) {
      expect(await gate.attempt("evil", wrong)).toEqual({
        ok: false,
        reason: "wrong",
        attemptsLeft: PAIRING_MAX_FAILURES - i,
      });
    }
    expect(await gate.attempt("evil", wrong)).toMatchObject({ ok: false, reason: "locked" });
    // Locked: even the right code is refused, other clients are not affected.
    expect(await gate.attempt("evil", code)).toMatchObject({ ok: false, reason: "locked" });
    clock.t += PAIRING_LOCKOUT_MS - 1000;
    expect(await gate.attempt("evil", code)).toEqual({ ok: false, reason: "locked", retryAfterS: 1 });
    clock.t += 1000;
    expect(await gate.attempt("evil", code)).toEqual({ ok: true });
  });

  test(`PAIRING_CODE_MAX_WRONG = ${PAIRING_CODE_MAX_WRONG} wrong guesses from distinct addresses: the right code still works`, async () => {
    const gate = pairingGate(3_600_000, fakeClock().now);
    const { code } = await gate.issue();
    for (let i = 0; i < PAIRING_CODE_MAX_WRONG; i++)
      expect(await gate.attempt(`127.0.${i}.1`, wrongFor(code))).toMatchObject({ reason: "wrong" });
    expect(await gate.attempt("127.9.9.9", code)).toEqual({ ok: true });
  });

  test(`one wrong guess past PAIRING_CODE_MAX_WRONG burns the code: the right one is refused from any address until a new code`, async () => {
    const gate = pairingGate(3_600_000, fakeClock().now);
    const { code } = await gate.issue();
    for (let i = 0; i < PAIRING_CODE_MAX_WRONG; i++) await gate.attempt(`127.0.${i}.1`, wrongFor(code));
    expect(await gate.attempt("127.1.0.1", wrongFor(code))).toEqual({ ok: false, reason: "burned" });
    expect(await gate.attempt("127.1.0.2", code)).toEqual({ ok: false, reason: "burned" });
    const fresh = await gate.issue();
    expect(await gate.attempt("127.1.0.2", fresh.code)).toEqual({ ok: true });
  });
});

describe("TokenStore", () => {
  test("stores only the SHA-256, verifies, revokes", () => {
    const db = new Database(":memory:");
    const store = new TokenStore(db, () => 0);
    const { token, record } = store.create("ci");
    expect(token.startsWith(TOKEN_PREFIX)).toBe(true);
    expect(Buffer.from(token.slice(TOKEN_PREFIX.length), "base64url").length).toBe(TOKEN_BYTES);
    const row = db.query("SELECT * FROM gateway_tokens").get() as Record<string, unknown>;
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row.token_sha256).toBe(sha256Hex(token));
    expect(store.verify(token)?.id).toBe(record.id);
    expect(store.verify(token + "x")).toBeNull();
    expect(store.list()[0]!.last_used_at).not.toBeNull();
    expect(store.revoke(record.id)).toBe(true);
    expect(store.revoke(record.id)).toBe(false);
    expect(store.verify(token)).toBeNull();
    expect(store.activeCount()).toBe(0);
    expect(
      isPrxError(
        thrown(() => store.revoke("tok_nope")),
        "NOT_FOUND",
      ),
    ).toBe(true);
    db.close();
  });

  test("a revocation from another connection or from this one counts at the next verify", async () => {
    const dir = mkdtempSync(join(tmpdir(), "prx-tokens-"));
    const path = join(dir, "prx.db");
    const db = new Database(path);
    db.exec("PRAGMA journal_mode = WAL");
    const gateway = new TokenStore(db);
    const first = gateway.create("one");
    const second = gateway.create("two");
    expect(gateway.verify(first.token)?.id).toBe(first.record.id);
    expect(gateway.verify(second.token)?.id).toBe(second.record.id);
    // Another connection (what `prx gateway token revoke` in another process is).
    const cli = new Database(path);
    new TokenStore(cli).revoke(first.record.id);
    cli.close();
    expect(gateway.verify(first.token)).toBeNull();
    expect(gateway.verify(second.token)?.id).toBe(second.record.id);
    // Another store on the same connection.
    new TokenStore(db).revoke(second.record.id);
    expect(gateway.verify(second.token)).toBeNull();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test(`names up to ${TOKEN_NAME_MAX_CHARS} characters`, () => {
    const db = new Database(":memory:");
    const store = new TokenStore(db);
    expect(store.create("n".repeat(TOKEN_NAME_MAX_CHARS)).record.name.length).toBe(TOKEN_NAME_MAX_CHARS);
    expect(
      isPrxError(
        thrown(() => store.create("n".repeat(TOKEN_NAME_MAX_CHARS + 1))),
        "USAGE",
      ),
    ).toBe(true);
    db.close();
  });
});

describe("IdempotencyStore", () => {
  test("new, in progress, replay, conflict, expiry", () => {
    const db = new Database(":memory:");
    const clock = fakeClock();
    const store = new IdempotencyStore(db, 60_000, clock.now);
    expect(store.begin("tok", "k", "h1")).toEqual({ kind: "new" });
    expect(thrown(() => store.begin("tok", "k", "h1"))).toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("in progress"),
    });
    expect(thrown(() => store.begin("tok", "k", "h2"))).toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("different request body"),
    });
    expect(store.begin("other-token", "k", "h2")).toEqual({ kind: "new" });
    store.complete("tok", "k", 200, '{"ok":1}');
    expect(store.begin("tok", "k", "h1")).toEqual({ kind: "replay", status: 200, body: '{"ok":1}' });
    clock.t += 60_000;
    expect(store.begin("tok", "k", "h2")).toEqual({ kind: "new" });
    db.close();
  });

  test("a pending claim older than the pending timeout is taken over; release frees a key", () => {
    const db = new Database(":memory:");
    const clock = fakeClock();
    const store = new IdempotencyStore(db, 3_600_000, clock.now);
    store.begin("t", "k", "h");
    clock.t += IDEMPOTENCY_PENDING_TIMEOUT_MS + 1;
    expect(store.begin("t", "k", "h")).toEqual({ kind: "new" });
    store.release("t", "k");
    expect(store.begin("t", "k", "h")).toEqual({ kind: "new" });
    db.close();
  });

  test(`keys up to ${IDEMPOTENCY_KEY_MAX_BYTES} bytes`, () => {
    const db = new Database(":memory:");
    const store = new IdempotencyStore(db, 60_000, () => 0);
    expect(store.begin("t", "k".repeat(IDEMPOTENCY_KEY_MAX_BYTES), "h")).toEqual({ kind: "new" });
    expect(thrown(() => store.begin("t", "k".repeat(IDEMPOTENCY_KEY_MAX_BYTES + 1), "h"))).toMatchObject({
      code: "BAD_REQUEST",
    });
    expect(thrown(() => store.begin("t", "é".repeat(IDEMPOTENCY_KEY_MAX_BYTES / 2 + 1), "h"))).toMatchObject({
      code: "BAD_REQUEST",
    });
    db.close();
  });
});

describe("readLimited", () => {
  const streamed = (bytes: number) =>
    new Request("http://localhost/", {
      method: "POST",
      body: new ReadableStream({
        start(c) {
          c.enqueue(new Uint8Array(bytes));
          c.close();
        },
      }),
    });

  test("a chunked body at the limit is read; one byte past it is 413 naming the limit", async () => {
    expect((await readLimited(streamed(100), 100)).length).toBe(100);
    const error = await readLimited(streamed(101), 100).catch((e) => e);
    expect(error).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      message: expect.stringContaining("gateway.max_body_bytes = 100"),
    });
  });
});

describe("JSON bodies", () => {
  /** What the parse hook makes of `body` sent to a real server: the value, or the error's code and message. */
  async function parsed(body: Uint8Array | string, headers: Record<string, string> = {}): Promise<unknown> {
    const parse = jsonParser(1024 * 1024);
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        try {
          return Response.json({ value: await parse({ request }) });
        } catch (error) {
          return Response.json({ error: { code: (error as { code?: string }).code, message: (error as Error).message } });
        }
      },
    });
    try {
      const response = await fetch(server.url, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
      return await response.json();
    } finally {
      server.stop(true);
    }
  }
  const utf8 = (text: string) => new TextEncoder().encode(text);

  test("UTF-8 text is read as the strict decoder reads it: a byte order mark dropped, U+FFFD kept, bad bytes refused", async () => {
    expect(await parsed('{"a":"plain"}')).toEqual({ value: { a: "plain" } });
    expect(await parsed(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('{"a":1}')]))).toEqual({ value: { a: 1 } });
    expect(await parsed(utf8('{"a":"é 😀 \uFFFD �"}'))).toEqual({ value: { a: "é 😀 � �" } });
    const refused = { error: { code: "BAD_REQUEST", message: "the request body is not valid UTF-8" } };
    expect(await parsed(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]))).toEqual(refused);
    // a broken sequence beside a real U+FFFD is still refused
    expect(await parsed(new Uint8Array([...utf8('{"a":"�'), 0xe2, 0x82, ...utf8('"}')]))).toEqual(refused);
    expect(await parsed("")).toEqual({ error: { code: "BAD_REQUEST", message: "the request body is empty; expected a JSON object" } });
  });

  test("a long data URL comes out whole; malformed JSON is 400 with JSON.parse's message", async () => {
    const url = `data:image/png;base64,${Buffer.alloc(200_000, 7).toString("base64")}`;
    const document = { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url } }] }] };
    expect(await parsed(JSON.stringify(document))).toEqual({ value: document });
    const malformed = `{"url": "${url}", }`;
    const message = (() => {
      try {
        JSON.parse(malformed);
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(await parsed(malformed)).toEqual({ error: { code: "BAD_REQUEST", message: `malformed JSON in the request body: ${message}` } });
  });
});

describe("metrics", () => {
  test("renders counters and histograms in Prometheus text format", () => {
    const metrics = new GatewayMetrics();
    metrics.request("/health", "GET", 200, 0.0007);
    metrics.turnDuration.observe(1.5);
    metrics.providerCalls.inc({ provider: "fake" }, 2);
    const text = metrics.render({ memory_store: 3 });
    expect(text).toContain('prx_http_requests_total{route="/health",method="GET",status="200"} 1');
    expect(text).toContain('prx_http_request_duration_seconds_bucket{route="/health",le="0.0005"} 0');
    expect(text).toContain('prx_http_request_duration_seconds_bucket{route="/health",le="0.001"} 1');
    expect(text).toContain('prx_http_request_duration_seconds_bucket{route="/health",le="+Inf"} 1');
    expect(text).toContain("prx_turn_duration_seconds_count 1");
    expect(text).toContain('prx_provider_calls_total{provider="fake"} 2');
    expect(text).toContain('prx_tool_calls_total{tool="memory_store"} 3');
    expect(text).toContain("# TYPE prx_provider_errors_total counter");
  });

  test(`series are capped at ${METRIC_MAX_SERIES}; the rest fold into "other"`, () => {
    const counter = new Counter("c", "help");
    for (let i = 0; i < METRIC_MAX_SERIES + 5; i++) counter.inc({ k: `v${i}` });
    expect(counter.get({ k: `v${METRIC_MAX_SERIES - 1}` })).toBe(1);
    expect(counter.get({ k: "other" })).toBe(5);
    expect(counter.render()).toContain('c{k="other"} 5');
  });

  test("series keys keep distinct label values apart, with none, one or several labels", () => {
    const none = new Counter("n", "help");
    none.inc();
    none.inc({}, 2);
    expect(none.get()).toBe(3);
    const one = new Counter("o", "help");
    for (const k of ["a", '"a', '["a"]', ""]) one.inc({ k });
    for (const k of ["a", '"a', '["a"]', ""]) expect(one.get({ k })).toBe(1);
    const two = new Counter("t", "help");
    two.inc({ a: "x", b: "y" });
    two.inc({ a: 'x","y', b: "" });
    expect(two.get({ a: "x", b: "y" })).toBe(1);
    expect(two.get({ a: 'x","y', b: "" })).toBe(1);
  });

  test("label values are escaped", () => {
    const counter = new Counter("c", "help");
    counter.inc({ k: 'a"b\\c\nd' });
    expect(counter.render()).toContain('c{k="a\\"b\\\\c\\nd"} 1');
  });
});

describe("OpenAI message conversion", () => {
  const config = ConfigSchema.parse({
    default_provider: "a",
    default_model: "a-1",
    providers: {
      a: { base_url: "http://127.0.0.1:1/v1", models: ["a-1", "a-2"] },
      b: { base_url: "http://127.0.0.1:2/v1", models: ["b-1"] },
    },
    model_routes: [{ hint: "fast", provider: "b", model: "b-1" }],
  });

  test("the client's conversation becomes history; the last user message is the turn's text", () => {
    const { history, text } = toTurnMessages([
      { role: "developer", content: "be brief" },
      {
        role: "user",
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "t", arguments: "{}" } }],
      },
      { role: "tool", content: "r", tool_call_id: "c1" },
      { role: "user", content: "now" },
    ]);
    expect(text).toBe("now");
    expect(history).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "ab" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "t", arguments: "{}" }] },
      { role: "tool", content: "r", tool_call_id: "c1" },
    ]);
    expect(thrown(() => toTurnMessages([{ role: "assistant", content: "x" }]))).toMatchObject({ code: "BAD_REQUEST" });
    expect(thrown(() => toTurnMessages([{ role: "user", content: [{ type: "file" }] }]))).toMatchObject({
      message: expect.stringContaining("takes text, image_url and input_audio parts"),
    });
    expect(thrown(() => toTurnMessages([{ role: "user", content: [{ type: "image_url" }] }]))).toMatchObject({
      message: expect.stringContaining("an image_url part is"),
    });
  });
});

describe("paths and binds", () => {

  test("loopback detection", () => {
    expect(["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"].every(isLoopback)).toBe(true);
    expect(["0.0.0.0", "::", "192.168.1.2", "example.com"].some(isLoopback)).toBe(false);
  });
});
