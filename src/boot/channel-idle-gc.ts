import { BACKGROUND_TIMERS, type Cancel, type Timers } from "../core/timers.ts";

/**
 * A channel process collects its garbage once each time it goes quiet (a kept trick, src/boot/tricks.ts): a full
 * collection CHANNEL_IDLE_COLLECT_MS after the last message in flight was answered, so a process that waits hours for
 * the next message does not keep what its last turns left. Once per quiet period (a message arriving meanwhile
 * cancels it), never per message; it costs ~10-15 ms of CPU.
 */
export const CHANNEL_IDLE_COLLECT_MS = 500;

export interface IdleCollector {
  /** The runner's count of messages in flight, at every change. */
  inFlight(count: number): void;
}

/**
 * `collect` is a full synchronous collection (Bun.gc(true)) outside tests; its timer does not keep the process alive
 * (BACKGROUND_TIMERS).
 */
export function idleCollector(
  collect: () => void = () => Bun.gc(true),
  timers: Pick<Timers, "after"> = BACKGROUND_TIMERS,
): IdleCollector {
  let cancelPending: Cancel | null = null;
  return {
    inFlight(count) {
      if (cancelPending !== null) {
        cancelPending();
        cancelPending = null;
      }
      if (count > 0) return;
      cancelPending = timers.after(() => {
        cancelPending = null;
        collect();
      }, CHANNEL_IDLE_COLLECT_MS);
    },
  };
}
