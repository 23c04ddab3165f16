import { PrxError } from "../../core/errors.ts";

/** Largest delay setTimeout accepts; longer waits re-arm. */
export const CRON_MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A wait of `ms` as setTimeout takes it: not below 0, and at most CRON_MAX_TIMER_MS, past which setTimeout would fire
 * at once (the scheduler re-arms after a cut wait; a lease renewal or a read of the jobs just comes earlier).
 */
export function timerDelay(ms: number): number {
  return Math.min(Math.max(0, ms), CRON_MAX_TIMER_MS);
}

/** Resolve with the job's output (non-strings are JSON-encoded) or reject with PLUGIN_TIMEOUT after `ms`. */
export function withTimeout(promise: Promise<string>, ms: number, id: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new PrxError("PLUGIN_TIMEOUT", `cron job "${id}" did not finish within ${ms} ms`)),
      ms,
    );
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(typeof value === "string" ? value : JSON.stringify(value));
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
