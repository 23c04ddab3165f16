import type { Cancel, Timers } from "../../src/core/timers.ts";

/** Timers whose time moves only when the test says so; see fakeTimers. */
export interface FakeTimers {
  readonly timers: Timers;
  /**
   * Moves the time `ms` forward (0: not at all), running on the way, in order of their time (ties in the order
   * they were scheduled), the `soon` runs queued so far and every timer that falls due, including those scheduled by
   * the runs themselves; the clocks read each run's own time while it runs. An interval runs once per period passed.
   */
  advance(ms: number): void;
  /** Runs the `soon` runs queued so far (those they queue wait for the next call), without moving the time. */
  flushSoon(): void;
  /** Runs still to come: timers armed and `soon` runs queued. */
  pending(): number;
}

interface Entry {
  at: number;
  seq: number;
  every: number | null;
  run: () => void;
}

/**
 * A manual implementation of Timers for tests: `now` and `dateNow` are one clock starting at 0; `soon` runs are
 * due at the time they were queued, so `advance(0)` or `flushSoon()` runs them.
 */
export function fakeTimers(): FakeTimers {
  let time = 0;
  let seq = 0;
  const entries = new Set<Entry>();
  const schedule = (run: () => void, at: number, every: number | null): Entry => {
    const entry = { at, seq: ++seq, every, run };
    entries.add(entry);
    return entry;
  };
  const cancel =
    (entry: Entry): Cancel =>
    () =>
      void entries.delete(entry);
  const soonQueue = new Set<Entry>();

  /** The entry due first at or before `until` (ties: the one scheduled first). */
  const nextDue = (until: number): Entry | undefined => {
    let first: Entry | undefined;
    for (const entry of entries) {
      if (entry.at > until) continue;
      if (!first || entry.at < first.at || (entry.at === first.at && entry.seq < first.seq)) first = entry;
    }
    return first;
  };
  const fire = (entry: Entry) => {
    time = Math.max(time, entry.at);
    if (entry.every === null) {
      entries.delete(entry);
      soonQueue.delete(entry);
    } else {
      // the next period, as setInterval: one run per period passed
      entry.at += entry.every;
      entry.seq = ++seq;
    }
    entry.run();
  };

  const timers: Timers = {
    now: () => time,
    dateNow: () => time,
    after: (run, ms) => cancel(schedule(run, time + Math.max(ms, 0), null)),
    every: (run, ms) => cancel(schedule(run, time + Math.max(ms, 1), Math.max(ms, 1))),
    soon: (run) => void soonQueue.add(schedule(run, time, null)),
  };

  return {
    timers,
    advance(ms) {
      const until = time + ms;
      for (let entry = nextDue(until); entry; entry = nextDue(until)) fire(entry);
      time = until;
    },
    flushSoon() {
      for (const entry of [...soonQueue]) if (entries.has(entry)) fire(entry);
    },
    pending: () => entries.size,
  };
}
