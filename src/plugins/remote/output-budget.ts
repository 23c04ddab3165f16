import {
  REMOTE_LOG_SUMMARY_INTERVAL_MS,
  REMOTE_OUTPUT_MAX_BYTES_PER_INTERVAL,
  REMOTE_OUTPUT_MAX_LINES_PER_INTERVAL,
  REMOTE_PLUGIN_LOG_MAX_CHARS,
} from "./limits.ts";

export interface BudgetLimits {
  /** Lines admitted per interval. */
  lines: number;
  /** Bytes admitted per interval (a line is admitted while the interval used less; its size is then charged). */
  bytes: number;
  intervalMs: number;
}

/** The allowance of one plugin's output (console lines, runtime.logger lines). */
export const PLUGIN_OUTPUT_LIMITS: BudgetLimits = {
  lines: REMOTE_OUTPUT_MAX_LINES_PER_INTERVAL,
  bytes: REMOTE_OUTPUT_MAX_BYTES_PER_INTERVAL,
  intervalMs: REMOTE_LOG_SUMMARY_INTERVAL_MS,
};

/**
 * What the host logs of one plugin's `log` messages per interval. The worker runtime keeps runtime.logger within
 * PLUGIN_OUTPUT_LIMITS over its own intervals, which do not line up with the host's: one host interval can see the
 * end of one worker interval and the start of the next, each with its summary line and one line over the bytes. So
 * the host allows twice that and drops only what a plugin sent past its worker runtime.
 */
export const HOST_LOG_LIMITS: BudgetLimits = {
  lines: 2 * (REMOTE_OUTPUT_MAX_LINES_PER_INTERVAL + 1),
  bytes: 2 * (REMOTE_OUTPUT_MAX_BYTES_PER_INTERVAL + 2 * REMOTE_PLUGIN_LOG_MAX_CHARS),
  intervalMs: REMOTE_LOG_SUMMARY_INTERVAL_MS,
};

/**
 * A per-interval allowance of lines and bytes for one source of output. `take()` says whether the next line may be
 * written (O(1), nothing is buffered); lines over the allowance are counted, and when the interval that dropped some
 * ends, `onDropped` gets their count: at most one call per interval.
 */
export class OutputBudget {
  private windowStart = Number.NEGATIVE_INFINITY;
  private lines = 0;
  private bytes = 0;
  private dropped = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** Lines dropped since the budget was made. */
  droppedTotal = 0;

  constructor(
    private readonly limits: BudgetLimits,
    private readonly onDropped: (lines: number) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** True when a line may be written now; charge its size with charge() once it is known. */
  take(): boolean {
    const t = this.now();
    if (t - this.windowStart >= this.limits.intervalMs) {
      this.windowStart = t;
      this.lines = 0;
      this.bytes = 0;
    }
    if (this.lines < this.limits.lines && this.bytes < this.limits.bytes) {
      this.lines += 1;
      return true;
    }
    this.dropped += 1;
    this.droppedTotal += 1;
    if (this.timer === null) {
      this.timer = setTimeout(() => this.flush(), Math.max(0, this.windowStart + this.limits.intervalMs - t));
      (this.timer as { unref?: () => void }).unref?.();
    }
    return false;
  }

  charge(bytes: number): void {
    this.bytes += bytes;
  }

  /** Report what was dropped so far now (also when stopping). */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const dropped = this.dropped;
    this.dropped = 0;
    if (dropped > 0) this.onDropped(dropped);
  }
}
