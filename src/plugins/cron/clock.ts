import { PrxError } from "../../core/errors.ts";
import type { CronClock } from "./types.ts";

/** Largest delay setTimeout accepts; longer waits re-arm. */
export const CRON_MAX_TIMER_MS = 2 ** 31 - 1;

/** Wall clock and an unref'd timer, so an idle scheduler neither spins nor keeps a one-shot CLI alive. */
export const systemClock: CronClock = {
  now: () => Date.now(),
  setTimer(fn, delayMs) {
    const handle = setTimeout(fn, Math.min(Math.max(0, delayMs), CRON_MAX_TIMER_MS));
    handle.unref?.();
    return { cancel: () => clearTimeout(handle) };
  },
};

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
