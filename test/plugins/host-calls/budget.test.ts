/**
 * The host-call budget: token bucket and calls in flight, at each limit and one past it, on an injected clock; and the
 * pacing of refusals, on an injected timer.
 */
import { describe, expect, test } from "bun:test";
import {
  DEFAULT_HOST_CALL_BURST,
  DEFAULT_HOST_CALL_LIMITS,
  DEFAULT_MAX_HOST_CALLS_IN_FLIGHT,
  DEFAULT_MAX_HOST_CALLS_PER_SECOND,
  HOST_CALL_MAX_HELD_REFUSALS,
  HOST_CALL_REFUSAL_DELAY_MS,
  HOST_CALL_REFUSAL_LOG_INTERVAL_MS,
  HostCallBudget,
  RefusalLog,
  RefusalPacer,
  type HostCallLimits,
} from "../../../src/plugins/host-calls/index.ts";

function budget(limits: HostCallLimits = DEFAULT_HOST_CALL_LIMITS) {
  const clock = { t: 1_700_000_000_000 };
  const b = new HostCallBudget("p", limits, () => clock.t);
  /** Admit `n` calls and release each at once; how many were admitted. */
  const calls = (n: number) => {
    let admitted = 0;
    for (let i = 0; i < n; i++) {
      if (b.admit() === null) {
        admitted += 1;
        b.release();
      }
    }
    return admitted;
  };
  return { b, clock, calls };
}

describe("host-call rate", () => {
  test(`the default burst (${DEFAULT_HOST_CALL_BURST}) passes at once; one more is refused, naming the limit and where to raise it`, () => {
    const { b, calls } = budget();
    expect(calls(DEFAULT_HOST_CALL_BURST)).toBe(DEFAULT_HOST_CALL_BURST);
    const refusal = b.admit();
    expect(refusal).toMatchObject({ reason: "rate", limit: DEFAULT_MAX_HOST_CALLS_PER_SECOND });
    expect(refusal!.message).toBe(
      `plugin p is over its host-call rate (max_host_calls_per_second = ${DEFAULT_MAX_HOST_CALLS_PER_SECOND}, ` +
        `host_call_burst = ${DEFAULT_HOST_CALL_BURST}); slow down, or raise them in the [resources] table of p's plugin.toml`,
    );
  });

  test("it refills at max_host_calls_per_second: one call per 1/rate s passes, a second in that time is refused", () => {
    const { clock, calls } = budget({ perSecond: 10, burst: 3, inFlight: 100 });
    expect(calls(4)).toBe(3);
    clock.t += 99;
    expect(calls(1)).toBe(0);
    clock.t += 1;
    expect(calls(2)).toBe(1);
    clock.t += 250;
    expect(calls(3)).toBe(2);
  });

  test("a quiet while refills no more than the burst", () => {
    const { clock, calls } = budget({ perSecond: 10, burst: 3, inFlight: 100 });
    expect(calls(3)).toBe(3);
    clock.t += 3_600_000;
    expect(calls(4)).toBe(3);
  });

  test("a refused call takes no token: a plugin that keeps calling still gets its rate", () => {
    const { clock, calls } = budget({ perSecond: 1000, burst: 1, inFlight: 100 });
    let admitted = 0;
    for (let ms = 0; ms < 100; ms++) {
      admitted += calls(50);
      clock.t += 1;
    }
    expect(admitted).toBe(100);
  });

  test("a clock going back refills nothing", () => {
    const { clock, calls } = budget({ perSecond: 10, burst: 1, inFlight: 100 });
    expect(calls(1)).toBe(1);
    clock.t -= 10_000;
    expect(calls(1)).toBe(0);
    clock.t += 100;
    expect(calls(1)).toBe(1);
  });
});

describe("host calls in flight", () => {
  test(`the default cap (${DEFAULT_MAX_HOST_CALLS_IN_FLIGHT}) passes; one more is refused until one ends`, () => {
    const { b } = budget();
    for (let i = 0; i < DEFAULT_MAX_HOST_CALLS_IN_FLIGHT; i++) expect(b.admit()).toBeNull();
    const refusal = b.admit();
    expect(refusal).toMatchObject({ reason: "in-flight", limit: DEFAULT_MAX_HOST_CALLS_IN_FLIGHT });
    expect(refusal!.message).toContain(`max_host_calls_in_flight = ${DEFAULT_MAX_HOST_CALLS_IN_FLIGHT}`);
    expect(refusal!.message).toContain("p's plugin.toml");
    expect(b.status().inFlight).toBe(DEFAULT_MAX_HOST_CALLS_IN_FLIGHT);
    b.release();
    expect(b.admit()).toBeNull();
  });

  test("a call refused for the cap takes no token", () => {
    const { b } = budget({ perSecond: 1, burst: 2, inFlight: 1 });
    expect(b.admit()).toBeNull();
    expect(b.admit()?.reason).toBe("in-flight");
    b.release();
    expect(b.admit()).toBeNull();
    b.release();
    expect(b.admit()?.reason).toBe("rate");
  });

  test("a release without a call in flight does not raise the cap", () => {
    const { b } = budget({ perSecond: 100, burst: 100, inFlight: 1 });
    b.release();
    expect(b.admit()).toBeNull();
    expect(b.admit()?.reason).toBe("in-flight");
  });
});

test("status counts refusals and keeps the last one's time (from the budget's clock)", () => {
  const { b, clock, calls } = budget({ perSecond: 1, burst: 1, inFlight: 10 });
  expect(b.status()).toEqual({ refused: 0, lastRefusedAt: null, inFlight: 0 });
  calls(1);
  clock.t += 5;
  expect(calls(3)).toBe(0);
  expect(b.status()).toEqual({ refused: 3, lastRefusedAt: clock.t, inFlight: 0 });
});

describe("refusal pacing", () => {
  function pacer(max = HOST_CALL_MAX_HELD_REFUSALS) {
    const timers: Array<{ run: () => void; ms: number; cancelled: boolean }> = [];
    const p = new RefusalPacer(HOST_CALL_REFUSAL_DELAY_MS, max, (run, ms) => {
      const timer = { run, ms, cancelled: false };
      timers.push(timer);
      return () => void (timer.cancelled = true);
    });
    return { p, timers };
  }

  test(`${HOST_CALL_MAX_HELD_REFUSALS} refusals are held for one delay and answered together; one more is answered at once`, () => {
    const { p, timers } = pacer();
    const answered: number[] = [];
    for (let i = 0; i < HOST_CALL_MAX_HELD_REFUSALS; i++) expect(p.hold(() => answered.push(i))).toBe(true);
    expect(p.hold(() => answered.push(-1))).toBe(false);
    expect([answered.length, p.size]).toEqual([0, HOST_CALL_MAX_HELD_REFUSALS]);
    expect(timers.map((t) => t.ms)).toEqual([HOST_CALL_REFUSAL_DELAY_MS]);
    timers[0]!.run();
    expect(answered).toHaveLength(HOST_CALL_MAX_HELD_REFUSALS);
    expect(p.size).toBe(0);
  });

  test("a refusal held after a batch went out waits for a new delay", () => {
    const { p, timers } = pacer(2);
    let answered = 0;
    p.hold(() => answered++);
    timers[0]!.run();
    p.hold(() => answered++);
    expect([answered, timers.length]).toEqual([1, 2]);
  });

  test("flush answers what is held now and cancels the timer", () => {
    const { p, timers } = pacer(2);
    let answered = 0;
    p.hold(() => answered++);
    p.flush();
    expect([answered, timers[0]!.cancelled, p.size]).toEqual([1, true, 0]);
  });
});

describe("refusal log", () => {
  test("the first refusal of an interval is logged with its reason, the rest of the interval as one count", () => {
    const clock = { t: 0 };
    const timers: Array<() => void> = [];
    const lines: string[] = [];
    const log = new RefusalLog((line) => lines.push(line), HOST_CALL_REFUSAL_LOG_INTERVAL_MS, () => clock.t, (run) => {
      timers.push(run);
      return () => {};
    });
    log.note("first");
    for (let i = 0; i < 500; i++) log.note("again");
    expect(lines).toEqual(["refused a host call: first"]);
    expect(timers).toHaveLength(1);
    timers[0]!();
    expect(lines.at(-1)).toBe(`refused 500 more host calls in the last ${HOST_CALL_REFUSAL_LOG_INTERVAL_MS} ms`);
    clock.t += HOST_CALL_REFUSAL_LOG_INTERVAL_MS - 1;
    log.note("still in the interval");
    expect(lines).toHaveLength(2);
    clock.t += 1;
    log.note("next interval");
    expect(lines).toEqual([
      "refused a host call: first",
      `refused 500 more host calls in the last ${HOST_CALL_REFUSAL_LOG_INTERVAL_MS} ms`,
      `refused 1 more host calls in the last ${HOST_CALL_REFUSAL_LOG_INTERVAL_MS} ms`,
      "refused a host call: next interval",
    ]);
  });
});
