/** The timer functions a ticker uses (tests pass their own to count and drive ticks). */
export interface TickerTimers {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

const realTimers: TickerTimers = {
  setInterval(fn, ms) {
    const handle = setInterval(fn, ms);
    handle.unref();
    return handle;
  },
  clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
};

/**
 * One timer for the memory checks of every remote plugin a runtime runs (its remote host state holds it): however
 * many plugins run, the host wakes once per period to measure them all, and not at all while none runs.
 */
export class MemoryTicker {
  private readonly checks = new Set<() => void>();
  private handle: unknown = null;

  constructor(
    readonly everyMs: number,
    private readonly timers: TickerTimers = realTimers,
  ) {}

  /** Run `check` every period until the returned function is called. */
  add(check: () => void): () => void {
    const entry = () => check();
    this.checks.add(entry);
    this.handle ??= this.timers.setInterval(() => this.tick(), this.everyMs);
    return () => {
      this.checks.delete(entry);
      if (this.checks.size > 0 || this.handle === null) return;
      this.timers.clearInterval(this.handle);
      this.handle = null;
    };
  }

  /** Checks registered now. */
  get size(): number {
    return this.checks.size;
  }

  /** Whether its one timer is armed. */
  get armed(): boolean {
    return this.handle !== null;
  }

  private tick(): void {
    for (const check of [...this.checks]) check();
  }
}
