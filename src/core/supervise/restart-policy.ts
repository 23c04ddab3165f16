import { exponentialDelay } from "./backoff.ts";
import type { RestartDecision, RestartLimits } from "./types.ts";

/**
 * When to start a supervised child again after it exited: a bounded exponential delay, a sliding window of exits
 * that tells a crash loop apart from the odd crash, and what to do about one (restart anyway, or give up).
 * Times come from the clock given (Date.now unless given), or are passed per call.
 */
export class RestartPolicy {
  private exits: number[] = [];
  /** Exits in a row since the last stable run (used when `stableAfterMs` is set). */
  private streak = 0;

  constructor(
    private readonly limits: RestartLimits,
    /** Milliseconds since the epoch (tests pass a clock they move by hand). */
    private readonly clock: () => number = Date.now,
  ) {}

  /** Record an exit at `at` of a child that started at `startedAt` (when known); says what happens next. */
  exited(startedAt?: number, at: number = this.clock()): RestartDecision {
    const { stableAfterMs } = this.limits;
    if (stableAfterMs !== undefined && startedAt !== undefined && at - startedAt >= stableAfterMs) this.streak = 0;
    this.exits = this.within(at);
    this.exits.push(at);
    this.streak += 1;
    const counted = stableAfterMs !== undefined ? this.streak : this.exits.length;
    const crashLoop = this.exits.length > this.limits.maxExitsPerWindow;
    return {
      delayMs: exponentialDelay(counted - 1, this.limits),
      exitsInWindow: this.exits.length,
      crashLoop,
      restart: !crashLoop || this.limits.onCrashLoop === "keep-restarting",
    };
  }

  /** More than `maxExitsPerWindow` exits within the window that ends at `at`. */
  crashLoop(at: number = this.clock()): boolean {
    return this.within(at).length > this.limits.maxExitsPerWindow;
  }

  /** Forget every exit (a restart asked for by hand starts with a clean record). */
  reset(): void {
    this.exits = [];
    this.streak = 0;
  }

  private within(at: number): number[] {
    return this.exits.filter((t) => at - t < this.limits.windowMs);
  }
}
