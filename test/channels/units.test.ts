import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import {
  CHANNEL_CRASH_LOOP_RESTARTS,
  CHANNEL_PAIRING_CODE_LENGTH,
  CHANNEL_PAIRING_MAX_PENDING,
  CHANNEL_PAIRING_TTL_MS,
  CHANNEL_RESTART_BASE_MS,
  CHANNEL_RESTART_LIMITS,
  CHANNEL_RESTART_MAX_MS,
  CHANNEL_STABLE_AFTER_MS,
  PLATFORM_SEND_ATTEMPTS,
  SIGNATURE_WINDOW_S,
} from "../../src/channels/limits.ts";
import { SqlitePairingStore as PairingStore } from "../../src/storage/index.ts";
import { withRetries } from "../../src/channels/send-retries.ts";
import { hmacHex, signPrx, verifyPrxSignature, verifySlackSignature } from "../../src/channels/signature.ts";
import { PlatformError } from "../../src/channels/platform-error.ts";
import { RestartPolicy } from "../../src/core/supervise/index.ts";

describe("signatures", () => {
  const now = 1_700_000_000_000;
  const body = '{"id":"1","sender_id":"a","text":"hi"}';
  test(`a prx signature ${SIGNATURE_WINDOW_S} s old is accepted; one second older is refused`, () => {
    const at = String(now / 1000 - SIGNATURE_WINDOW_S);
    const sig = `sha256=${hmacHex("s3cret", `${at}.${body}`)}`;
    expect(verifyPrxSignature("s3cret", at, sig, body, now)).toEqual({ ok: true });
    const past = String(now / 1000 - SIGNATURE_WINDOW_S - 1);
    const old = `sha256=${hmacHex("s3cret", `${past}.${body}`)}`;
    expect(verifyPrxSignature("s3cret", past, old, body, now).ok).toBe(false);
  });

  test("a wrong secret, a changed body or a missing header is refused", () => {
    const headers = signPrx("s3cret", body, now);
    expect(verifyPrxSignature("s3cret", headers["x-prx-timestamp"], headers["x-prx-signature"], body, now).ok).toBe(true);
    expect(verifyPrxSignature("other", headers["x-prx-timestamp"], headers["x-prx-signature"], body, now).ok).toBe(false);
    expect(verifyPrxSignature("s3cret", headers["x-prx-timestamp"], headers["x-prx-signature"], body + " ", now).ok).toBe(false);
    expect(verifyPrxSignature("s3cret", undefined, headers["x-prx-signature"], body, now).ok).toBe(false);
    expect(verifyPrxSignature("s3cret", headers["x-prx-timestamp"], undefined, body, now).ok).toBe(false);
  });

  test(`Slack v0 signatures: inside the ${SIGNATURE_WINDOW_S} s window accepted, one second past refused`, () => {
    const ts = String(now / 1000 + SIGNATURE_WINDOW_S);
    expect(verifySlackSignature("sign", ts, `v0=${hmacHex("sign", `v0:${ts}:${body}`)}`, body, now).ok).toBe(true);
    const late = String(now / 1000 + SIGNATURE_WINDOW_S + 1);
    expect(verifySlackSignature("sign", late, `v0=${hmacHex("sign", `v0:${late}:${body}`)}`, body, now).ok).toBe(false);
    expect(verifySlackSignature("sign", ts, `v0=${hmacHex("nope", `v0:${ts}:${body}`)}`, body, now).ok).toBe(false);
  });
});

describe("pairing store", () => {
  test(`codes have ${CHANNEL_PAIRING_CODE_LENGTH} characters; a sender asking again gets the same code until it expires`, () => {
    let now = 1000;
    const store = new PairingStore(new Database(":memory:"), () => now);
    const code = store.request("tg", "42", "Ada");
    expect(code).toMatch(new RegExp(`^[A-Z2-9]{${CHANNEL_PAIRING_CODE_LENGTH}}$`));
    expect(store.request("tg", "42", "Ada")).toBe(code);
    now += CHANNEL_PAIRING_TTL_MS;
    expect(() => store.approve(code)).toThrow(/no pending pairing request/);
    const fresh = store.request("tg", "42", "Ada");
    expect(fresh).not.toBe(code);
    expect(store.approve(fresh.toLowerCase()).sender_id).toBe("42");
    expect(store.isApproved("tg", "42")).toBe(true);
    expect(store.isApproved("slack", "42")).toBe(false);
    expect(store.revoke("42")).toBe(1);
    expect(store.isApproved("tg", "42")).toBe(false);
  });

  test(`${CHANNEL_PAIRING_MAX_PENDING} pending requests are kept; one more drops the oldest`, () => {
    let now = 0;
    const store = new PairingStore(new Database(":memory:"), () => ++now);
    const codes = Array.from({ length: CHANNEL_PAIRING_MAX_PENDING }, (_, i) => store.request("tg", `s${i}`, "x"));
    expect(store.list().filter((r) => r.state === "pending")).toHaveLength(CHANNEL_PAIRING_MAX_PENDING);
    store.request("tg", "one-more", "x");
    const pending = store.list().filter((r) => r.state === "pending");
    expect(pending).toHaveLength(CHANNEL_PAIRING_MAX_PENDING);
    expect(pending.some((r) => r.sender_id === "s0")).toBe(false);
    expect(() => store.approve(codes[0]!)).toThrow(/no pending/);
    expect(store.approve(codes[1]!).sender_id).toBe("s1");
  });
});

describe("restart policy", () => {
  test(`${CHANNEL_CRASH_LOOP_RESTARTS} quick exits are restarts; one more is a crash loop; the delay doubles up to the cap`, () => {
    const policy = new RestartPolicy(CHANNEL_RESTART_LIMITS);
    const delays: number[] = [];
    let now = 1_000_000;
    for (let i = 0; i < CHANNEL_CRASH_LOOP_RESTARTS; i++) delays.push(policy.exited(now - 10, (now += 10)).delayMs);
    expect(policy.crashLoop(now)).toBe(false);
    delays.push(policy.exited(now - 10, (now += 10)).delayMs);
    expect(policy.crashLoop(now)).toBe(true);
    expect(delays.slice(0, 3)).toEqual([CHANNEL_RESTART_BASE_MS, CHANNEL_RESTART_BASE_MS * 2, CHANNEL_RESTART_BASE_MS * 4]);
    for (let i = 0; i < 20; i++) delays.push(policy.exited(now - 10, (now += 10)).delayMs);
    expect(Math.max(...delays)).toBe(CHANNEL_RESTART_MAX_MS);
  });

  test("a child that stayed up long enough starts its backoff over", () => {
    const policy = new RestartPolicy(CHANNEL_RESTART_LIMITS);
    policy.exited(0, 10);
    policy.exited(10, 20);
    expect(policy.exited(20, 20 + CHANNEL_STABLE_AFTER_MS).delayMs).toBe(CHANNEL_RESTART_BASE_MS);
  });
});

describe("send retries", () => {
  const failing = (times: number) => {
    let calls = 0;
    return async () => {
      calls += 1;
      if (calls <= times) throw new PlatformError("test", "busy", 503, true, 1);
      return calls;
    };
  };
  test(`a send failing ${PLATFORM_SEND_ATTEMPTS - 1} times succeeds on attempt ${PLATFORM_SEND_ATTEMPTS}; failing ${PLATFORM_SEND_ATTEMPTS} times is reported`, async () => {
    expect(await withRetries(failing(PLATFORM_SEND_ATTEMPTS - 1))).toBe(PLATFORM_SEND_ATTEMPTS);
    await expect(withRetries(failing(PLATFORM_SEND_ATTEMPTS))).rejects.toThrow(/busy/);
  });
  test("an error that is not retryable is reported at once", async () => {
    let calls = 0;
    const fn = async () => {
      calls += 1;
      throw new PlatformError("test", "bad token", 401, false);
    };
    await expect(withRetries(fn)).rejects.toThrow(/bad token/);
    expect(calls).toBe(1);
  });
});

test("remembered chats: at the bound every chat is kept; one more forgets the one set longest ago", async () => {
  const { RememberedChats } = await import("../../src/channels/remembered-chats.ts");
  const chats = new RememberedChats<number>(3);
  chats.set("a", 1);
  chats.set("b", 2);
  chats.set("c", 3);
  expect([chats.get("a"), chats.get("b"), chats.get("c"), chats.size]).toEqual([1, 2, 3, 3]);
  chats.set("a", 4); // a is the newest now
  chats.set("d", 5);
  expect([chats.get("a"), chats.get("b"), chats.get("c"), chats.get("d"), chats.size]).toEqual([4, undefined, 3, 5, 3]);
});
