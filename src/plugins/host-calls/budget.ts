import { DEFAULT_HOST_CALL_BURST, DEFAULT_MAX_HOST_CALLS_IN_FLIGHT, DEFAULT_MAX_HOST_CALLS_PER_SECOND } from "./limits.ts";
import type { HostCallBudgetStatus, HostCallLimits, HostCallRefusal } from "./types.ts";

export const DEFAULT_HOST_CALL_LIMITS: Readonly<HostCallLimits> = {
  perSecond: DEFAULT_MAX_HOST_CALLS_PER_SECOND,
  burst: DEFAULT_HOST_CALL_BURST,
  inFlight: DEFAULT_MAX_HOST_CALLS_IN_FLIGHT,
};

/**
 * One plugin's host-call budget: a token bucket (`burst` tokens, refilled at `perSecond`) and a cap on calls in
 * flight. admit() is O(1) and allocates nothing: a plugin over its budget costs the host a counter and a refusal.
 * A refused call takes no token, so a plugin that keeps calling still gets `perSecond` calls served.
 */
export class HostCallBudget {
  private tokens: number;
  private at: number;
  private current = 0;
  private refused = 0;
  private lastRefusedAt: number | null = null;
  private readonly perMs: number;
  private readonly overRate: HostCallRefusal;
  private readonly overInFlight: HostCallRefusal;

  constructor(
    plugin: string,
    readonly limits: Readonly<HostCallLimits> = DEFAULT_HOST_CALL_LIMITS,
    /** Epoch milliseconds (status shows the last refusal's time); a clock going back refills nothing. */
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = limits.perSecond / 1000;
    this.tokens = limits.burst;
    this.at = now();
    const where = `the [resources] table of ${plugin}'s plugin.toml`;
    this.overRate = {
      reason: "rate",
      limit: limits.perSecond,
      message:
        `plugin ${plugin} is over its host-call rate (max_host_calls_per_second = ${limits.perSecond}, ` +
        `host_call_burst = ${limits.burst}); slow down, or raise them in ${where}`,
    };
    this.overInFlight = {
      reason: "in-flight",
      limit: limits.inFlight,
      message:
        `plugin ${plugin} has ${limits.inFlight} host calls in flight (max_host_calls_in_flight = ${limits.inFlight}); ` +
        `await calls before making more, or raise it in ${where}`,
    };
  }

  /** Admit one call now: null when it may run (call release() when it ends), else why it is refused. */
  admit(): HostCallRefusal | null {
    const now = this.now();
    if (this.current >= this.limits.inFlight) return this.refuse(this.overInFlight, now);
    if (now > this.at) this.tokens = Math.min(this.limits.burst, this.tokens + (now - this.at) * this.perMs);
    this.at = now;
    if (this.tokens < 1) return this.refuse(this.overRate, now);
    this.tokens -= 1;
    this.current += 1;
    return null;
  }

  /** An admitted call ended (answered or failed). */
  release(): void {
    if (this.current > 0) this.current -= 1;
  }

  status(): HostCallBudgetStatus {
    return { refused: this.refused, lastRefusedAt: this.lastRefusedAt, inFlight: this.current };
  }

  private refuse(refusal: HostCallRefusal, now: number): HostCallRefusal {
    this.refused += 1;
    this.lastRefusedAt = now;
    return refusal;
  }
}
