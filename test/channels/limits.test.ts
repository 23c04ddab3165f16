/**
 * Channel bounds tested at the limit and one past it without waiting them out: the backoff with its randomness
 * pinned, clocks passed in where the code compares times, and shorter limits passed in where it sets timers.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import {
  CHANNEL_CRASH_LOOP_RESTARTS,
  CHANNEL_CRASH_LOOP_WINDOW_MS,
  CHANNEL_HTTP_TIMEOUT_MS,
  CHANNEL_KILL_AFTER_MS,
  CHANNEL_PAIRING_TTL_MS,
  CHANNEL_RESTART_BASE_MS,
  CHANNEL_RESTART_LIMITS,
  CHANNEL_STABLE_AFTER_MS,
  CHANNEL_STOP_GRACE_MS,
  MATRIX_TYPING_TIMEOUT_MS,
  PARENT_WATCH_INTERVAL_MS,
  PLATFORM_BACKOFF,
  PLATFORM_BACKOFF_BASE_MS,
  PLATFORM_BACKOFF_MAX_MS,
  PLATFORM_RETRY_AFTER_MAX_MS,
  PLATFORM_SEND_ATTEMPTS,
  TYPING_INTERVAL_MS,
  WEBHOOK_REPLY_KEEP_MAX,
  WEBHOOK_REPLY_KEEP_MS,
  WEBHOOK_SYNC_WAIT_MS,
} from "../../src/channels/limits.ts";
import { SqlitePairingStore as PairingStore } from "../../src/storage/index.ts";
import { PlatformError } from "../../src/channels/platform-error.ts";
import { retryAfterMs, withRetries } from "../../src/channels/send-retries.ts";
import { WebhookReplies } from "../../src/channels/webhook/replies.ts";
import { waitFor } from "../helpers/wait.ts";

import { Backoff, RestartPolicy, watchParent } from "../../src/core/supervise/index.ts";

/** The largest value Math.random can return: the top of every jitter range. */
const HIGHEST = 1 - Number.EPSILON;

describe("platform backoff", () => {
  test(`the first wait is at most ${PLATFORM_BACKOFF_BASE_MS} ms (at least half); the waits double up to ${PLATFORM_BACKOFF_MAX_MS} ms and stay there`, () => {
    const high = new Backoff({ ...PLATFORM_BACKOFF, random: () => HIGHEST });
    const waits = Array.from({ length: 12 }, () => high.next());
    expect(waits[0]).toBe(PLATFORM_BACKOFF_BASE_MS);
    expect(new Backoff({ ...PLATFORM_BACKOFF, random: () => 0 }).next()).toBe(PLATFORM_BACKOFF_BASE_MS / 2);
    // the last doubling below the cap, then the one that would pass it
    const lastBelow = Math.floor(Math.log2(PLATFORM_BACKOFF_MAX_MS / PLATFORM_BACKOFF_BASE_MS));
    expect(waits[lastBelow]).toBe(PLATFORM_BACKOFF_BASE_MS * 2 ** lastBelow);
    expect(PLATFORM_BACKOFF_BASE_MS * 2 ** (lastBelow + 1)).toBeGreaterThan(PLATFORM_BACKOFF_MAX_MS);
    expect(waits.slice(lastBelow + 1)).toEqual(Array(12 - lastBelow - 1).fill(PLATFORM_BACKOFF_MAX_MS));
    expect(Math.max(...waits)).toBe(PLATFORM_BACKOFF_MAX_MS);
    high.reset();
    expect(high.next()).toBe(PLATFORM_BACKOFF_BASE_MS);
  });

  test("a send failing without retry_after waits the backoff between attempts (shorter limits passed in)", async () => {
    const waits: number[] = [];
    let calls = 0;
    const sent = await withRetries(
      async () => {
        if (++calls < PLATFORM_SEND_ATTEMPTS) throw new PlatformError("test", "busy", 503, true);
        return "sent";
      },
      undefined,
      (_error, wait) => waits.push(wait),
      new Backoff({ baseMs: 5, maxMs: 20, jitter: true, random: () => HIGHEST }),
    );
    expect(sent).toBe("sent");
    expect(waits).toEqual([5, 10, 20, 20].slice(0, PLATFORM_SEND_ATTEMPTS - 1));
  });

  test(`a retry_after of ${PLATFORM_RETRY_AFTER_MAX_MS} ms is honoured; a millisecond more is capped`, () => {
    expect(retryAfterMs(PLATFORM_RETRY_AFTER_MAX_MS / 1000, 1)).toBe(PLATFORM_RETRY_AFTER_MAX_MS);
    expect(retryAfterMs((PLATFORM_RETRY_AFTER_MAX_MS + 1) / 1000, 1)).toBe(PLATFORM_RETRY_AFTER_MAX_MS);
    expect(retryAfterMs((PLATFORM_RETRY_AFTER_MAX_MS - 1) / 1000, 1)).toBe(PLATFORM_RETRY_AFTER_MAX_MS - 1);
    expect(retryAfterMs(undefined, 777)).toBe(777);
  });
});

describe("restart policy windows", () => {
  test(`an exit ${CHANNEL_CRASH_LOOP_WINDOW_MS - 1} ms ago still counts toward a crash loop; at ${CHANNEL_CRASH_LOOP_WINDOW_MS} ms it has left the window`, () => {
    const policy = new RestartPolicy(CHANNEL_RESTART_LIMITS);
    const first = 1_000_000;
    policy.exited(first - 10, first);
    for (let i = 1; i <= CHANNEL_CRASH_LOOP_RESTARTS; i++) policy.exited(first + i - 10, first + i);
    expect(policy.crashLoop(first + CHANNEL_CRASH_LOOP_RESTARTS)).toBe(true);
    expect(policy.crashLoop(first + CHANNEL_CRASH_LOOP_WINDOW_MS - 1)).toBe(true);
    expect(policy.crashLoop(first + CHANNEL_CRASH_LOOP_WINDOW_MS)).toBe(false);
  });

  test(`a child up ${CHANNEL_STABLE_AFTER_MS - 1} ms keeps doubling its backoff; one up ${CHANNEL_STABLE_AFTER_MS} ms starts over`, () => {
    const short = new RestartPolicy(CHANNEL_RESTART_LIMITS);
    short.exited(0, 10);
    expect(short.exited(10, 10 + CHANNEL_STABLE_AFTER_MS - 1).delayMs).toBe(CHANNEL_RESTART_BASE_MS * 2);
    const stable = new RestartPolicy(CHANNEL_RESTART_LIMITS);
    stable.exited(0, 10);
    expect(stable.exited(10, 10 + CHANNEL_STABLE_AFTER_MS).delayMs).toBe(CHANNEL_RESTART_BASE_MS);
  });

  test(`a pairing code ${CHANNEL_PAIRING_TTL_MS - 1} ms old is approved; at ${CHANNEL_PAIRING_TTL_MS} ms it has expired`, () => {
    let now = 5_000;
    const store = new PairingStore(new Database(":memory:"), () => now);
    const fresh = store.request("tg", "1", "Ada");
    now += CHANNEL_PAIRING_TTL_MS - 1;
    expect(store.approve(fresh).sender_id).toBe("1");
    const old = store.request("tg", "2", "Bob");
    now += CHANNEL_PAIRING_TTL_MS;
    expect(() => store.approve(old)).toThrow(/no pending pairing request/);
  });
});

describe("webhook replies", () => {
  test(`an answer nobody waited for is kept ${WEBHOOK_REPLY_KEEP_MS} ms; one ms more and it is dropped`, async () => {
    let now = 1_000;
    const replies = new WebhookReplies({ now: () => now, waitMs: 10 });
    replies.settle("kept", ["a"]);
    now += WEBHOOK_REPLY_KEEP_MS;
    replies.settle("other", ["b"]); // settling prunes what is older than the limit
    expect(await replies.wait("kept")).toEqual(["a"]);
    now += 1;
    replies.settle("third", ["c"]);
    expect(replies.kept).toBe(2);
    now += WEBHOOK_REPLY_KEEP_MS + 1;
    replies.settle("last", ["d"]);
    expect(replies.kept).toBe(1);
    await expect(replies.wait("other")).rejects.toMatchObject({ code: "ABORTED", status: 202 });
  });

  test(`at most ${WEBHOOK_REPLY_KEEP_MAX} answers are kept; one more drops the oldest`, async () => {
    const replies = new WebhookReplies({ waitMs: 10 });
    for (let i = 0; i < WEBHOOK_REPLY_KEEP_MAX; i++) replies.settle(`m${i}`, [`a${i}`]);
    expect(replies.kept).toBe(WEBHOOK_REPLY_KEEP_MAX);
    replies.settle("m0", ["again"]); // settled again: moves to the end, still one entry
    expect(replies.kept).toBe(WEBHOOK_REPLY_KEEP_MAX);
    replies.settle("past", ["p"]);
    expect(replies.kept).toBe(WEBHOOK_REPLY_KEEP_MAX);
    await expect(replies.wait("m1")).rejects.toMatchObject({ code: "ABORTED", status: 202 });
    expect(await replies.wait("m0")).toEqual(["again"]);
    expect(await replies.wait("m2")).toEqual(["a2"]);
    expect(await replies.wait("past")).toEqual(["p"]);
  });

  test("an answer settled again is kept from its last settling", async () => {
    let now = 1_000;
    const replies = new WebhookReplies({ now: () => now, waitMs: 10 });
    replies.settle("first", ["a"]);
    replies.settle("second", ["b"]);
    now += WEBHOOK_REPLY_KEEP_MS;
    replies.settle("first", ["a"]);
    now += 1;
    replies.settle("third", ["c"]); // "second" expired behind "first", which is fresh again
    expect(replies.kept).toBe(2);
    expect(await replies.wait("first")).toEqual(["a"]);
    await expect(replies.wait("second")).rejects.toMatchObject({ status: 202 });
  });

  test("a caller waiting gets an answer that comes within the wait; past it, 202 and the answer is kept for the same id", async () => {
    const replies = new WebhookReplies({ waitMs: 30 });
    const within = replies.wait("m1");
    replies.settle("m1", ["on time"]);
    expect(await within).toEqual(["on time"]);
    const late = replies.wait("m2");
    await expect(late).rejects.toMatchObject({ status: 202, message: expect.stringContaining("post the same id again") });
    replies.settle("m2", ["late"]);
    expect(await replies.wait("m2")).toEqual(["late"]);
  });

  test(`the sync wait (${WEBHOOK_SYNC_WAIT_MS} ms) ends before the gateway's own wait (${CHANNEL_HTTP_TIMEOUT_MS} ms), so a slow turn is 202, not 504`, () => {
    expect(WEBHOOK_SYNC_WAIT_MS).toBeLessThan(CHANNEL_HTTP_TIMEOUT_MS);
    expect(CHANNEL_KILL_AFTER_MS).toBeGreaterThan(CHANNEL_STOP_GRACE_MS);
  });
});

describe("typing", () => {
  /** How long a typing notice lasts on each platform: Telegram's sendChatAction 5 s, Discord's trigger typing 10 s. */
  const LASTS = { telegram: 5000, discord: 10_000, matrix: MATRIX_TYPING_TIMEOUT_MS };
  test(`typing is sent again (every ${TYPING_INTERVAL_MS} ms) before any platform's notice lapses`, () => {
    for (const lasts of Object.values(LASTS)) expect(TYPING_INTERVAL_MS).toBeLessThan(lasts);
  });
});

describe("parent watch", () => {
  test(`the parent is checked every interval (${PARENT_WATCH_INTERVAL_MS} ms in a channel process); the first check after it is gone ends the process`, async () => {
    let parent = 4242;
    let checks = 0;
    let goneAtCheck = 0;
    const unwatch = watchParent(() => (goneAtCheck ||= checks), {
      intervalMs: 5,
      parentPid: () => (checks++, parent),
    });
    try {
      await waitFor(() => checks >= 5, "five checks");
      expect(goneAtCheck).toBe(0);
      parent = 1; // re-parented: the gateway died
      const at = checks;
      await waitFor(() => goneAtCheck > 0, "the parent to be reported gone");
      expect(goneAtCheck).toBe(at + 1);
    } finally {
      unwatch();
    }
  });
});
