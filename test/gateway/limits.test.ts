/** Each named limit of the gateway at the limit (passes) and one past it (fails). */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MemoryPairingLockout } from "../../src/gateway/auth/lockout.ts";
import { SqliteTokenStore as TokenStore } from "../../src/storage/index.ts";
import { SqliteIdempotencyStore as IdempotencyStore } from "../../src/storage/index.ts";
import {
  BEARER_MAX_CHARS,
  IDEMPOTENCY_PURGE_BATCH,
  USER_MESSAGE_MAX_CHARS,
  OPENAI_MAX_MESSAGES,
  PAIRING_MAX_FAILURES,
  PAIRING_MAX_TRACKED_CLIENTS,
  RATE_LIMIT_MAX_KEYS,
  REQUEST_ID_MAX_CHARS,
  SESSION_MESSAGES_MAX,
  SESSIONS_LIST_MAX,
  TOKEN_TOUCH_INTERVAL_MS,
} from "../../src/gateway/limits.ts";
import { ChatCompletionRequestSchema } from "../../src/gateway/openai/schemas.ts";
import { RESPONSES_METADATA_KEY_MAX_CHARS, RESPONSES_METADATA_VALUE_MAX_CHARS } from "../../src/gateway/responses/limits.ts";
import { MetadataSchema } from "../../src/gateway/responses/schemas.ts";
import { RateLimiter } from "../../src/gateway/rate-limit.ts";
import { limitFrom } from "../../src/gateway/routes/sessions.ts";
import { MessageBodySchema } from "../../src/gateway/schemas.ts";
import { harness, json, type Harness } from "./harness.ts";

let h: Harness;
beforeAll(async () => {
  h = await harness();
});
afterAll(() => h.close());

describe("request limits", () => {
  test(`BEARER_MAX_CHARS = ${BEARER_MAX_CHARS}`, async () => {
    const at = await json(h.call("/api/status", { auth: "t".repeat(BEARER_MAX_CHARS) }));
    expect(at.error.message).toContain("invalid or revoked");
    const past = await json(h.call("/api/status", { auth: "t".repeat(BEARER_MAX_CHARS + 1) }));
    expect(past.error.message).toContain(`longer than ${BEARER_MAX_CHARS}`);
  });

  test(`REQUEST_ID_MAX_CHARS = ${REQUEST_ID_MAX_CHARS}`, async () => {
    const at = "r".repeat(REQUEST_ID_MAX_CHARS);
    expect((await h.call("/health", { headers: { "x-request-id": at } })).headers.get("x-request-id")).toBe(at);
    const past = at + "r";
    expect((await h.call("/health", { headers: { "x-request-id": past } })).headers.get("x-request-id")).not.toBe(past);
  });

  test(`USER_MESSAGE_MAX_CHARS = ${USER_MESSAGE_MAX_CHARS}`, () => {
    expect(MessageBodySchema.safeParse({ message: "m".repeat(USER_MESSAGE_MAX_CHARS) }).success).toBe(true);
    expect(MessageBodySchema.safeParse({ message: "m".repeat(USER_MESSAGE_MAX_CHARS + 1) }).success).toBe(false);
  });

  test(`OPENAI_MAX_MESSAGES = ${OPENAI_MAX_MESSAGES}`, () => {
    const messages = (n: number) => Array.from({ length: n }, () => ({ role: "user", content: "x" }));
    expect(
      ChatCompletionRequestSchema.safeParse({ model: "m", messages: messages(OPENAI_MAX_MESSAGES) }).success,
    ).toBe(true);
    expect(
      ChatCompletionRequestSchema.safeParse({ model: "m", messages: messages(OPENAI_MAX_MESSAGES + 1) }).success,
    ).toBe(false);
  });

  test(`SESSIONS_LIST_MAX = ${SESSIONS_LIST_MAX}, SESSION_MESSAGES_MAX = ${SESSION_MESSAGES_MAX}: ?limit is clamped`, () => {
    const at = (n: number) => new Request(`http://localhost/api/sessions?limit=${n}`);
    expect(limitFrom(at(SESSIONS_LIST_MAX), SESSIONS_LIST_MAX)).toBe(SESSIONS_LIST_MAX);
    expect(limitFrom(at(SESSIONS_LIST_MAX + 1), SESSIONS_LIST_MAX)).toBe(SESSIONS_LIST_MAX);
    expect(limitFrom(at(SESSION_MESSAGES_MAX + 1), SESSION_MESSAGES_MAX)).toBe(SESSION_MESSAGES_MAX);
    expect(limitFrom(new Request("http://localhost/"), SESSIONS_LIST_MAX)).toBe(SESSIONS_LIST_MAX);
    expect(() => limitFrom(at(0), SESSIONS_LIST_MAX)).toThrow("positive integer");
  });
});

describe("memory bounds", () => {
  test(`RATE_LIMIT_MAX_KEYS = ${RATE_LIMIT_MAX_KEYS}`, () => {
    const limiter = new RateLimiter(10, () => 0);
    for (let i = 0; i < RATE_LIMIT_MAX_KEYS; i++) limiter.take(`k${i}`);
    expect(limiter.size).toBe(RATE_LIMIT_MAX_KEYS);
    limiter.take("one-more");
    expect(limiter.size).toBe(RATE_LIMIT_MAX_KEYS);
  });

  test(`PAIRING_MAX_TRACKED_CLIENTS = ${PAIRING_MAX_TRACKED_CLIENTS}: the oldest client's failures are forgotten`, () => {
    const lockout = new MemoryPairingLockout(() => 0);
    lockout.failed("first");
    for (let i = 1; i < PAIRING_MAX_TRACKED_CLIENTS; i++) lockout.failed(`c${i}`);
    // At the limit "first" is still remembered...
    expect(lockout.failed("first")).toEqual({ locked: false, attemptsLeft: PAIRING_MAX_FAILURES - 2 });
    // ...its retry moved it to the newest end, so one more client evicts "c1" instead.
    lockout.failed("newcomer");
    expect(lockout.failed("c1")).toEqual({ locked: false, attemptsLeft: PAIRING_MAX_FAILURES - 1 });
    expect(lockout.failed("c2")).toEqual({ locked: false, attemptsLeft: PAIRING_MAX_FAILURES - 1 });
  });

  test(`IDEMPOTENCY_PURGE_BATCH = ${IDEMPOTENCY_PURGE_BATCH} expired rows removed per claim`, () => {
    const db = new Database(":memory:");
    const clock = { t: 0 };
    const store = new IdempotencyStore(db, 1000, () => clock.t);
    for (let i = 0; i < IDEMPOTENCY_PURGE_BATCH + 1; i++) store.begin("s", `k${i}`, "h");
    clock.t = 1000;
    store.begin("s", "fresh", "h");
    const count = () => (db.query("SELECT COUNT(*) AS n FROM gateway_idempotency").get() as { n: number }).n;
    expect(count()).toBe(2); // one expired row was past the batch, plus "fresh"
    store.begin("s", "fresh2", "h");
    expect(count()).toBe(2); // the next claim purged the leftover
    db.close();
  });

  test(`TOKEN_TOUCH_INTERVAL_MS = ${TOKEN_TOUCH_INTERVAL_MS}: last_used_at is written at most that often`, () => {
    const db = new Database(":memory:");
    const clock = { t: Date.UTC(2026, 0, 1) };
    const store = new TokenStore(db, () => clock.t);
    const { token } = store.create("t");
    store.verify(token);
    const first = store.list()[0]!.last_used_at;
    clock.t += TOKEN_TOUCH_INTERVAL_MS - 1;
    store.verify(token);
    expect(store.list()[0]!.last_used_at).toBe(first);
    clock.t += 1;
    store.verify(token);
    expect(store.list()[0]!.last_used_at).not.toBe(first);
    db.close();
  });
});

describe("Responses API metadata", () => {
  const chars = (n: number) => "m".repeat(n);

  test("a key of RESPONSES_METADATA_KEY_MAX_CHARS passes, one character more is refused", () => {
    expect(MetadataSchema.safeParse({ [chars(RESPONSES_METADATA_KEY_MAX_CHARS)]: "v" }).success).toBe(true);
    expect(MetadataSchema.safeParse({ [chars(RESPONSES_METADATA_KEY_MAX_CHARS + 1)]: "v" }).success).toBe(false);
  });

  test("a value of RESPONSES_METADATA_VALUE_MAX_CHARS passes, one character more is refused", () => {
    expect(MetadataSchema.safeParse({ k: chars(RESPONSES_METADATA_VALUE_MAX_CHARS) }).success).toBe(true);
    expect(MetadataSchema.safeParse({ k: chars(RESPONSES_METADATA_VALUE_MAX_CHARS + 1) }).success).toBe(false);
  });
});
