/**
 * How a channel process reports its counters (participant.ts): at most once per interval however many messages
 * change them, the first change after a quiet interval in the next turn of the event loop, the later ones together at
 * the interval's end (the last report always holds the last change).
 */
export interface ThrottleTimers {
  now(): number;
  /** Runs `run` in the next turn of the event loop. */
  soon(run: () => void): void;
  /** Runs `run` after `ms`, without keeping the process alive for it. */
  after(run: () => void, ms: number): void;
}

const realTimers: ThrottleTimers = {
  now: () => performance.now(),
  soon: (run) => void setImmediate(run),
  after: (run, ms) => void setTimeout(run, ms).unref(),
};

/** Returns the function to call at every change: `run` follows it at most once per `intervalMs`. */
export function throttled(run: () => void, intervalMs: number, timers: ThrottleTimers = realTimers): () => void {
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
