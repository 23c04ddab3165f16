/**
 * The timers of src/core/timers.ts: the two real sets fire, repeat and cancel as setTimeout, setInterval and
 * setImmediate do (only the order and counts of runs are asserted, never how long they took), BACKGROUND_TIMERS
 * never keeps a process alive while REAL_TIMERS does; and the manual fake the tests drive them with.
 */
import { describe, expect, test } from "bun:test";
import { BACKGROUND_TIMERS, REAL_TIMERS, TIMER_MAX_MS, sleepOn, timerWait, type Timers } from "../../src/core/timers.ts";
import { fakeTimers } from "../helpers/fake-timers.ts";

const TIMERS_MODULE = new URL("../../src/core/timers.ts", import.meta.url).href;

/** Resolves when `timers` runs the promise's `after(…, ms)`. */
const afterRun = (timers: Timers, ms: number) => new Promise<void>((resolve) => void timers.after(resolve, ms));

for (const [name, timers] of [
  ["REAL_TIMERS", REAL_TIMERS],
  ["BACKGROUND_TIMERS", BACKGROUND_TIMERS],
] as const) {
  describe(name, () => {
    test("after runs once; a cancelled one never runs, one that ran ignores its cancel", async () => {
      const runs: string[] = [];
      const cancelled = timers.after(() => runs.push("cancelled"), 0);
      cancelled();
      const ran = timers.after(() => runs.push("ran"), 0);
      await afterRun(timers, 5);
      ran();
      cancelled();
      expect(runs).toEqual(["ran"]);
    });

    test("every repeats until cancelled, then runs no more", async () => {
      let runs = 0;
      const { promise: third, resolve } = Promise.withResolvers<void>();
      const cancel = timers.every(() => {
        runs++;
        if (runs === 3) resolve();
      }, 1);
      await third;
      cancel();
      // three more periods, at least, in which a still-armed interval would have run
      await afterRun(timers, 10);
      expect(runs).toBe(3);
    });

    test("soon runs on a later turn, not within the current one", async () => {
      const runs: string[] = [];
      const { promise, resolve } = Promise.withResolvers<void>();
      timers.soon(() => (runs.push("soon"), resolve()));
      runs.push("now");
      await Promise.resolve();
      runs.push("microtask");
      await promise;
      expect(runs).toEqual(["now", "microtask", "soon"]);
    });

    test("now is monotonic and dateNow is the system's time", () => {
      const first = timers.now();
      expect(timers.now()).toBeGreaterThanOrEqual(first);
      const before = Date.now();
      const wall = timers.dateNow();
      expect(wall).toBeGreaterThanOrEqual(before);
      expect(wall).toBeLessThanOrEqual(Date.now());
    });
  });
}

/** What a fresh `bun` process prints when `script` runs with `timers` (the set named) in scope. */
function runInProcess(set: "REAL_TIMERS" | "BACKGROUND_TIMERS", script: string): { stdout: string; exitCode: number } {
  const code = `const { ${set}: timers } = await import(${JSON.stringify(TIMERS_MODULE)});\n${script}`;
  const child = Bun.spawnSync([process.execPath, "-e", code], { stdout: "pipe", stderr: "pipe" });
  return { stdout: child.stdout.toString(), exitCode: child.exitCode };
}

describe("timerWait", () => {
  test(`a wait up to TIMER_MAX_MS (${TIMER_MAX_MS} ms) is kept; one more ends at TIMER_MAX_MS; below 0 is 0`, () => {
    expect(timerWait(TIMER_MAX_MS)).toBe(TIMER_MAX_MS);
    expect(timerWait(TIMER_MAX_MS + 1)).toBe(TIMER_MAX_MS);
    expect(timerWait(0)).toBe(0);
    expect(timerWait(-1)).toBe(0);
  });
});

describe("keeping the process alive", () => {
  test("REAL_TIMERS' after and every keep it running until they have run", () => {
    const result = runInProcess(
      "REAL_TIMERS",
      `timers.after(() => console.log("after"), 20);
       let n = 0;
       const cancel = timers.every(() => { console.log("every " + ++n); if (n === 2) cancel(); }, 5);`,
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split("\n").filter(Boolean).sort()).toEqual(["after", "every 1", "every 2"]);
  });

  test("BACKGROUND_TIMERS' after and every do not: the process ends with them pending", () => {
    const result = runInProcess(
      "BACKGROUND_TIMERS",
      `timers.after(() => console.log("after"), 2000);
       timers.every(() => console.log("every"), 2000);
       console.log("end of script");`,
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("end of script\n");
  });

  test("soon runs before the process ends, in either set", () => {
    for (const set of ["REAL_TIMERS", "BACKGROUND_TIMERS"] as const) {
      const result = runInProcess(set, `timers.soon(() => console.log("soon"));`);
      expect(result.stdout).toBe("soon\n");
    }
  });
});

describe("fakeTimers", () => {
  test("advance runs the timers due by then in order of their time, each reading its own time", () => {
    const clock = fakeTimers();
    const runs: Array<[string, number]> = [];
    const at = (name: string) => () => runs.push([name, clock.timers.now()]);
    clock.timers.after(at("c"), 30);
    clock.timers.after(at("a"), 10);
    clock.timers.after(at("b"), 10);
    clock.timers.after(at("late"), 31);
    clock.advance(29);
    expect(runs).toEqual([
      ["a", 10],
      ["b", 10],
    ]);
    clock.advance(1);
    expect(runs.map(([name]) => name)).toEqual(["a", "b", "c"]);
    expect(clock.timers.now()).toBe(30);
    expect(clock.timers.dateNow()).toBe(30);
    expect(clock.pending()).toBe(1);
  });

  test("a timer scheduled by a run is run by the same advance when it falls due within it", () => {
    const clock = fakeTimers();
    const runs: number[] = [];
    clock.timers.after(() => {
      runs.push(clock.timers.now());
      clock.timers.after(() => runs.push(clock.timers.now()), 5);
    }, 5);
    clock.advance(12);
    expect(runs).toEqual([5, 10]);
    expect(clock.pending()).toBe(0);
  });

  test("a cancelled timer never runs; cancelling one that ran does nothing", () => {
    const clock = fakeTimers();
    let runs = 0;
    const cancel = clock.timers.after(() => runs++, 10);
    cancel();
    expect(clock.pending()).toBe(0);
    clock.advance(100);
    expect(runs).toBe(0);
    const ran = clock.timers.after(() => runs++, 10);
    clock.advance(10);
    ran();
    expect(runs).toBe(1);
  });

  test("every runs once per interval passed until cancelled", () => {
    const clock = fakeTimers();
    let runs = 0;
    const cancel = clock.timers.every(() => runs++, 10);
    clock.advance(9);
    expect(runs).toBe(0);
    clock.advance(1);
    expect(runs).toBe(1);
    clock.advance(35);
    expect(runs).toBe(4);
    cancel();
    clock.advance(100);
    expect(runs).toBe(4);
    expect(clock.pending()).toBe(0);
  });

  test("soon runs wait for flushSoon or advance; what they queue waits for the next flush", () => {
    const clock = fakeTimers();
    const runs: string[] = [];
    clock.timers.soon(() => {
      runs.push("first");
      clock.timers.soon(() => runs.push("queued by first"));
    });
    expect(runs).toEqual([]);
    expect(clock.pending()).toBe(1);
    clock.flushSoon();
    expect(runs).toEqual(["first"]);
    clock.advance(0);
    expect(runs).toEqual(["first", "queued by first"]);
    expect(clock.timers.now()).toBe(0);
    expect(clock.pending()).toBe(0);
  });

  test("a soon run comes before a timer due later, after one scheduled earlier for the same time", () => {
    const clock = fakeTimers();
    const runs: string[] = [];
    clock.timers.after(() => runs.push("after 0"), 0);
    clock.timers.soon(() => runs.push("soon"));
    clock.timers.after(() => runs.push("after 1"), 1);
    clock.advance(1);
    expect(runs).toEqual(["after 0", "soon", "after 1"]);
  });
});

describe("sleepOn", () => {
  test("resolves once its time has passed on the timers given, not before", async () => {
    const fake = fakeTimers();
    let woke = false;
    const slept = sleepOn(fake.timers, 100).then(() => (woke = true));
    fake.advance(99);
    await Promise.resolve();
    expect(woke).toBe(false);
    fake.advance(1);
    await slept;
    expect(woke).toBe(true);
  });

  test("an abort wakes it at once and cancels its timer; a signal aborted already does not sleep", async () => {
    const fake = fakeTimers();
    const abort = new AbortController();
    const slept = sleepOn(fake.timers, 100, abort.signal);
    expect(fake.pending()).toBe(1);
    abort.abort();
    await slept;
    expect(fake.pending()).toBe(0);
    await sleepOn(fake.timers, 100, abort.signal);
    expect(fake.pending()).toBe(0);
  });
});
