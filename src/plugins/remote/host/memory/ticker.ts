import { BACKGROUND_TIMERS, type Cancel, type Timers } from "../../../../core/timers.ts";

/**
 * One timer for the memory checks of every remote plugin a runtime runs (its remote host state holds it): however
 * many plugins run, the host wakes once per period to measure them all, and not at all while none runs.
 */
export class MemoryTicker {
  private readonly checks = new Set<() => void>();
  private cancelTimer: Cancel | null = null;

  /** `timers`: where its one interval runs; BACKGROUND_TIMERS, which never keep the process alive, outside tests. */
  constructor(
    readonly everyMs: number,
    private readonly timers: Pick<Timers, "every"> = BACKGROUND_TIMERS,
  ) {}

  /** Run `check` every period until the returned function is called. */
  add(check: () => void): () => void {
    const entry = () => check();
    this.checks.add(entry);
    this.cancelTimer ??= this.timers.every(() => this.tick(), this.everyMs);
    return () => {
      this.checks.delete(entry);
      if (this.checks.size > 0 || this.cancelTimer === null) return;
      this.cancelTimer();
      this.cancelTimer = null;
    };
  }

  /** Checks registered now. */
  get size(): number {
    return this.checks.size;
  }

  /** Whether its one timer is armed. */
  get armed(): boolean {
    return this.cancelTimer !== null;
  }

  private tick(): void {
    for (const check of [...this.checks]) check();
  }
}
