/** Cancels a scheduled run; calling it after the run, or twice, does nothing. */
export type Cancel = () => void;

/**
 * The clocks and timers a part of prx runs on, injectable so tests move time by hand (test/helpers/fake-timers.ts).
 * A part takes the `Pick` of what it uses; outside tests it gets REAL_TIMERS or BACKGROUND_TIMERS.
 */
export interface Timers {
  /** Milliseconds on a monotonic clock (performance.now): for durations, unmoved by changes of the system time. */
  now(): number;
  /** Milliseconds since the Unix epoch (Date.now): follows the system time, jumps included. */
  dateNow(): number;
  /** Runs `run` once after `ms` (at most TIMER_MAX_MS: see timerWait). */
  after(run: () => void, ms: number): Cancel;
  /** Runs `run` every `ms` (at most TIMER_MAX_MS) until cancelled. */
  every(run: () => void, ms: number): Cancel;
  /** Runs `run` on a later turn of the event loop (setImmediate). */
  soon(run: () => void): void;
}

/** setTimeout's longest wait: past it, a timer would fire at once. */
export const TIMER_MAX_MS = 2 ** 31 - 1;

/**
 * The wait a real timer is armed with: not below 0, and at most TIMER_MAX_MS; whoever waits longer finds, when it
 * ends, that its time has not come and arms again (the cron scheduler does).
 */
export function timerWait(ms: number): number {
  return Math.min(Math.max(ms, 0), TIMER_MAX_MS);
}

/** Real timers: `keepAlive` false unrefs them, so they never keep the process alive. */
function realTimers(keepAlive: boolean): Timers {
  const held = <T extends { unref(): T }>(timer: T) => (keepAlive ? timer : timer.unref());
  return {
    now: () => performance.now(),
    dateNow: () => Date.now(),
    after(run, ms) {
      const timer = held(setTimeout(run, timerWait(ms)));
      return () => clearTimeout(timer);
    },
    every(run, ms) {
      const timer = held(setInterval(run, timerWait(ms)));
      return () => clearInterval(timer);
    },
    soon: (run) => void setImmediate(run),
  };
}

/** Timers that keep the process alive while they are pending (plain setTimeout and setInterval). */
export const REAL_TIMERS: Timers = realTimers(true);

/**
 * Timers that never keep the process alive (unref'd): for sweeps, checks and reports that only matter while
 * something else keeps it running. `soon` is the same as REAL_TIMERS' (a plain setImmediate): it waits one turn only.
 */
export const BACKGROUND_TIMERS: Timers = realTimers(false);

/** Resolves after `ms` on `timers`, or at once when `signal` aborts (or has), leaving no listener behind. */
export function sleepOn(timers: Pick<Timers, "after">, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      cancel();
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const cancel = timers.after(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
