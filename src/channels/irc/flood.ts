/**
 * IRC flood control as clients do it (irssi sends a few commands at once, then paces the rest): a token bucket of
 * `burst` lines, one line's token back every `intervalMs`. A one-line reply goes out at once; a long one goes out
 * `burst` lines at once and then one line per interval, under what servers allow before they throttle or disconnect.
 */
export class SendBucket {
  /** Sending time in hand, in milliseconds (a line costs intervalMs): whole numbers, so waits come out exact. */
  private credit: number;
  private at: number;

  constructor(
    private readonly burst: number,
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.credit = burst * intervalMs;
    this.at = now();
  }

  /** Take a line's token: how long to wait before sending it (0: now). The caller sends once that time has passed. */
  take(): number {
    this.refill();
    this.credit -= this.intervalMs;
    return Math.max(0, -this.credit);
  }

  /** Take a line's token only if the line may go now: false (nothing taken) when it would have to wait. */
  takeNow(): boolean {
    if (this.refill() < this.intervalMs) return false;
    this.credit -= this.intervalMs;
    return true;
  }

  private refill(): number {
    const now = this.now();
    this.credit = Math.min(this.burst * this.intervalMs, this.credit + (now - this.at));
    this.at = now;
    return this.credit;
  }
}
