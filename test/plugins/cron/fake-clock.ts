import type { Cancel } from "../../../src/core/timers.ts";
import type { CronTimers } from "../../../src/plugins/cron/index.ts";

interface FakeTimer {
  due: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * A manual clock: time moves only through advanceTo, which fires due timers in order. Kept rather than the shared
 * fake timers: it starts at a given wall-clock time (cron slots are dates) and lets promise callbacks run after each
 * timer it fires, so the scheduler's store calls settle between them.
 */
export class FakeClock implements CronTimers {
  private timers: FakeTimer[] = [];

  constructor(public t: number) {}

  now(): number {
    return this.t;
  }

  dateNow(): number {
    return this.t;
  }

  after(fn: () => void, delayMs: number): Cancel {
    const timer: FakeTimer = { due: this.t + delayMs, fn, cancelled: false };
    this.timers.push(timer);
    return () => void (timer.cancelled = true);
  }

  /** Live (not cancelled, not yet fired) timers. */
  pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Move time to `ms`, firing due timers in order and letting promise callbacks run after each one. */
  async advanceTo(ms: number): Promise<void> {
    for (;;) {
      this.timers = this.timers.filter((t) => !t.cancelled);
      const next = this.timers.filter((t) => t.due <= ms).sort((a, b) => a.due - b.due)[0];
      if (!next) break;
      this.timers.splice(this.timers.indexOf(next), 1);
      this.t = Math.max(this.t, next.due);
      next.fn();
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    this.t = ms;
  }
}
