/**
 * Supervision without waiting: restart policies read a clock the test moves by hand, backoff takes a pinned random,
 * and the timers of the parent watch, the grace wait and the abortable sleep run on Bun's fake timers.
 */
import { afterEach, describe, expect, jest, test } from "bun:test";
import {
  Backoff,
  exponentialDelay,
  RestartPolicy,
  sleep,
  waitAtMost,
  watchParent,
  type RestartLimits,
} from "../../src/core/supervise/index.ts";

/** The largest value Math.random can return: the top of every jitter range. */
const HIGHEST = 1 - Number.EPSILON;

const LIMITS = { baseMs: 100, maxMs: 1000, windowMs: 60_000, maxExitsPerWindow: 3 } as const;
const KEEP: RestartLimits = { ...LIMITS, onCrashLoop: "keep-restarting" };
const GIVE_UP: RestartLimits = { ...LIMITS, onCrashLoop: "give-up" };

afterEach(() => {
  jest.useRealTimers();
});

describe("exponential delay", () => {
  test("the base for the first failure, doubling per failure, never above the cap", () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => exponentialDelay(n, LIMITS))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  test("a huge failure count is the cap, not Infinity; a negative one is the base", () => {
    expect(exponentialDelay(10_000, LIMITS)).toBe(1000);
    expect(exponentialDelay(-3, LIMITS)).toBe(100);
  });
});

describe("backoff", () => {
  test("without jitter each wait is the exponential ceiling; reset starts over", () => {
    const backoff = new Backoff(LIMITS);
    expect([backoff.next(), backoff.next(), backoff.next()]).toEqual([100, 200, 400]);
    backoff.reset();
    expect(backoff.next()).toBe(100);
  });

  test("with jitter each wait lies between half and all of its ceiling", () => {
    const high = new Backoff({ ...LIMITS, jitter: true, random: () => HIGHEST });
    const low = new Backoff({ ...LIMITS, jitter: true, random: () => 0 });
    const highs = Array.from({ length: 6 }, () => high.next());
    const lows = Array.from({ length: 6 }, () => low.next());
    expect(highs).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(lows).toEqual([50, 100, 200, 400, 500, 500]);
  });
});

describe("restart policy", () => {
  test("the delay doubles per exit in the window; exits that left it no longer count", () => {
    let now = 1_000_000;
    const policy = new RestartPolicy(KEEP, () => now);
    const delays = [policy.exited().delayMs, policy.exited().delayMs, policy.exited().delayMs];
    expect(delays).toEqual([100, 200, 400]);
    now += LIMITS.windowMs - 1;
    expect(policy.exited()).toMatchObject({ delayMs: 800, exitsInWindow: 4 });
    now += 1; // the first three have left the window
    expect(policy.exited()).toMatchObject({ delayMs: 200, exitsInWindow: 2 });
  });

  test(`${LIMITS.maxExitsPerWindow} exits in the window are restarts; one more is a crash loop`, () => {
    let now = 0;
    const keep = new RestartPolicy(KEEP, () => now);
    const giveUp = new RestartPolicy(GIVE_UP, () => now);
    for (let i = 0; i < LIMITS.maxExitsPerWindow; i++) {
      expect(keep.exited()).toMatchObject({ crashLoop: false, restart: true });
      expect(giveUp.exited()).toMatchObject({ crashLoop: false, restart: true });
      now += 10;
    }
    expect(keep.exited()).toMatchObject({ crashLoop: true, restart: true, exitsInWindow: LIMITS.maxExitsPerWindow + 1 });
    expect(giveUp.exited()).toMatchObject({ crashLoop: true, restart: false, exitsInWindow: LIMITS.maxExitsPerWindow + 1 });
    expect(keep.crashLoop()).toBe(true);
    // the window ends LIMITS.windowMs after the first exit
    expect(keep.crashLoop(LIMITS.windowMs - 1)).toBe(true);
    expect(keep.crashLoop(LIMITS.windowMs + 10)).toBe(false);
  });

  test("with stableAfterMs the delay follows exits in a row, and a child that ran long enough starts it over", () => {
    const policy = new RestartPolicy({ ...KEEP, stableAfterMs: 5000 }, () => 0);
    expect(policy.exited(0, 10).delayMs).toBe(100);
    expect(policy.exited(10, 20).delayMs).toBe(200);
    expect(policy.exited(20, 20 + 4999).delayMs).toBe(400);
    expect(policy.exited(5019, 5019 + 5000).delayMs).toBe(100);
  });

  test("with stableAfterMs the delay keeps doubling past the window (the window only tells a crash loop)", () => {
    let now = 0;
    const policy = new RestartPolicy({ ...KEEP, stableAfterMs: 5000 }, () => now);
    const exitAfterShortRun = () => {
      now += LIMITS.windowMs;
      return policy.exited(now - 1, now);
    };
    for (let i = 0; i < 4; i++) exitAfterShortRun();
    expect(exitAfterShortRun()).toMatchObject({ delayMs: 1000, exitsInWindow: 1, crashLoop: false });
  });

  test("reset forgets every exit", () => {
    const policy = new RestartPolicy(GIVE_UP, () => 0);
    for (let i = 0; i <= LIMITS.maxExitsPerWindow; i++) policy.exited();
    expect(policy.crashLoop()).toBe(true);
    policy.reset();
    expect(policy.crashLoop()).toBe(false);
    expect(policy.exited()).toMatchObject({ delayMs: 100, exitsInWindow: 1, restart: true });
  });
});

describe("parent watch", () => {
  test("a changed parent pid is noticed at the next check, not before", () => {
    jest.useFakeTimers();
    let parent = 4242;
    let gone = 0;
    const unwatch = watchParent(() => gone++, { intervalMs: 500, parentPid: () => parent });
    try {
      jest.advanceTimersByTime(1500);
      expect(gone).toBe(0);
      parent = 1; // re-parented: the parent died
      jest.advanceTimersByTime(499);
      expect(gone).toBe(0);
      jest.advanceTimersByTime(1);
      expect(gone).toBe(1);
    } finally {
      unwatch();
    }
    jest.advanceTimersByTime(5000);
    expect(gone).toBe(1);
  });

  test("a closed IPC channel is the parent gone at once; after unwatch it is not heard", () => {
    let gone = 0;
    const unwatch = watchParent(() => gone++, { intervalMs: 60_000, parentPid: () => 4242 });
    process.emit("disconnect");
    expect(gone).toBe(1);
    unwatch();
    process.emit("disconnect");
    expect(gone).toBe(1);
  });
});

describe("grace and sleep", () => {
  test("waitAtMost is true for a promise that resolves in time, false once the time ran out", async () => {
    jest.useFakeTimers();
    let resolveExit!: () => void;
    const exited = new Promise<void>((resolve) => (resolveExit = resolve));
    const inTime = waitAtMost(exited, 1000);
    resolveExit();
    expect(await inTime).toBe(true);
    const never = waitAtMost(new Promise(() => {}), 1000);
    jest.advanceTimersByTime(1000);
    expect(await never).toBe(false);
  });

  test("waitAtMost passes a rejection on", async () => {
    await expect(waitAtMost(Promise.reject(new Error("broken")), 1000)).rejects.toThrow("broken");
  });

  test("sleep resolves after its time, or at once when its signal aborts", async () => {
    jest.useFakeTimers();
    let slept = false;
    const sleeping = sleep(1000).then(() => (slept = true));
    jest.advanceTimersByTime(999);
    await Promise.resolve();
    expect(slept).toBe(false);
    jest.advanceTimersByTime(1);
    await sleeping;
    expect(slept).toBe(true);
    const stop = new AbortController();
    const stopped = sleep(60_000, stop.signal);
    stop.abort();
    await stopped;
    await sleep(60_000, stop.signal); // an aborted signal does not wait at all
  });
});
