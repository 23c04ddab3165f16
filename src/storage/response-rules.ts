import { RESPONSES_PURGE_INTERVAL_MS } from "./limits.ts";

/** The oldest `created_at` (seconds, as the response object holds it) a stored response may have and still be read. */
export function oldestKeptSecond(now: number, ttlMs: number): number {
  return Math.ceil((now - ttlMs) / 1000);
}

/** Whether a store whose last cleanup pass ran at `last` (ms; undefined: never) runs one now. */
export function purgeDue(last: number | undefined, now: number): boolean {
  return last === undefined || now - last >= RESPONSES_PURGE_INTERVAL_MS || now < last;
}
