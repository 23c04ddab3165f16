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
  /** Runs `run` once after `ms`. */
  after(run: () => void, ms: number): Cancel;
  /** Runs `run` every `ms` until cancelled. */
  every(run: () => void, ms: number): Cancel;
  /** Runs `run` on a later turn of the event loop (setImmediate). */
  soon(run: () => void): void;
}

const now = () => performance.now();
const dateNow = () => Date.now();
const soon = (run: () => void) => void setImmediate(run);

/** Timers that keep the process alive while they are pending (plain setTimeout and setInterval). */
export const REAL_TIMERS: Timers = {
  now,
  dateNow,
  after(run, ms) {
    const timer = setTimeout(run, ms);
    return () => clearTimeout(timer);
  },
  every(run, ms) {
    const timer = setInterval(run, ms);
    return () => clearInterval(timer);
  },
  soon,
};

/**
 * Timers that never keep the process alive (unref'd): for sweeps, checks and reports that only matter while
 * something else keeps it running. `soon` is the same as REAL_TIMERS' (a plain setImmediate): it waits one turn only.
 */
export const BACKGROUND_TIMERS: Timers = {
  now,
  dateNow,
  after(run, ms) {
    const timer = setTimeout(run, ms).unref();
    return () => clearTimeout(timer);
  },
  every(run, ms) {
    const timer = setInterval(run, ms).unref();
    return () => clearInterval(timer);
  },
  soon,
};
