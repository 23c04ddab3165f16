import type { BackoffLimits, BackoffOptions } from "./types.ts";

/** Beyond this many doublings every delay is the cap anyway; it keeps 2 ** n finite. */
const MAX_DOUBLINGS = 30;

/** The delay after `failures` earlier failures (0 for the first): `baseMs * 2^failures`, at most `maxMs`. */
export function exponentialDelay(failures: number, limits: BackoffLimits): number {
  const doublings = Math.min(Math.max(0, failures), MAX_DOUBLINGS);
  return Math.min(limits.maxMs, limits.baseMs * 2 ** doublings);
}

/** Waits between attempts that keep failing: exponential, bounded, with jitter when asked; reset() after a success. */
export class Backoff {
  private attempt = 0;
  private readonly random: () => number;

  constructor(private readonly options: BackoffOptions) {
    this.random = options.random ?? Math.random;
  }

  /** The wait before the next attempt; counts one more failure. */
  next(): number {
    const ceiling = exponentialDelay(this.attempt, this.options);
    this.attempt += 1;
    return this.options.jitter ? Math.round(ceiling / 2 + (this.random() * ceiling) / 2) : ceiling;
  }

  reset(): void {
    this.attempt = 0;
  }
}
