/**
 * A channel process collects its garbage once each time it goes quiet (a kept trick, src/boot/tricks.ts): a full
 * collection CHANNEL_IDLE_COLLECT_MS after the last message in flight was answered, so a process that waits hours for
 * the next message does not keep what its last turns left. Once per quiet period (a message arriving meanwhile
 * cancels it), never per message; it costs ~10-15 ms of CPU.
 */
export const CHANNEL_IDLE_COLLECT_MS = 500;

export interface IdleTimers {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: IdleTimers = {
  // the timer does not keep the process alive
  set: (run, ms) => setTimeout(run, ms).unref(),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface IdleCollector {
  /** The runner's count of messages in flight, at every change. */
  inFlight(count: number): void;
}

/** `collect` is a full synchronous collection (Bun.gc(true)) outside tests. */
export function idleCollector(collect: () => void = () => Bun.gc(true), timers: IdleTimers = realTimers): IdleCollector {
  let pending: unknown = null;
  return {
    inFlight(count) {
      if (pending !== null) {
        timers.clear(pending);
        pending = null;
      }
      if (count > 0) return;
      pending = timers.set(() => {
        pending = null;
        collect();
      }, CHANNEL_IDLE_COLLECT_MS);
    },
  };
}
