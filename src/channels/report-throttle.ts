import { BACKGROUND_TIMERS, type Timers } from "../core/timers.ts";

/**
 * How a channel process reports its counters (participant.ts): at most once per interval however many messages
 * change them, the first change after a quiet interval in the next turn of the event loop, the later ones together at
 * the interval's end (the last report always holds the last change).
 */
/**
 * Returns the function to call at every change: `run` follows it at most once per `intervalMs`, on the monotonic
 * clock; the wait for an interval's end does not keep the process alive (BACKGROUND_TIMERS).
 */
export function throttled(
  run: () => void,
  intervalMs: number,
  timers: Pick<Timers, "now" | "soon" | "after"> = BACKGROUND_TIMERS,
): () => void {
  let queued = false;
  let ranAt = -Infinity;
  const runNow = () => {
    queued = false;
    ranAt = timers.now();
    run();
  };
  return () => {
    if (queued) return;
    queued = true;
    const wait = ranAt + intervalMs - timers.now();
    if (wait <= 0) timers.soon(runNow);
    else timers.after(runNow, wait);
  };
}
