import type { CronClock } from "../../../src/plugins/cron/index.ts";

interface FakeTimer {
  due: number;
  fn: () => void;
  cancelled: boolean;
}

/** A manual clock: time moves only through advanceTo, which fires due timers in order. */
export class FakeClock implements CronClock {
  private timers: FakeTimer[] = [];

  constructor(public t: number) {}

  now(): number {
    return this.t;
  }

  setTimer(fn: () => void, delayMs: number): { cancel(): void } {
    const timer: FakeTimer = { due: this.t + delayMs, fn, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => (timer.cancelled = true) };
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
