import { REAL_TIMERS, sleepOn } from "../timers.ts";

/** Resolves after `ms`, or at once when `signal` aborts (a stopping client does not wait out its backoff). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return ms <= 0 ? Promise.resolve() : sleepOn(REAL_TIMERS, ms, signal);
}
