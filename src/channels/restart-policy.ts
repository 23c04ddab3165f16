import {
  CHANNEL_CRASH_LOOP_RESTARTS,
  CHANNEL_CRASH_LOOP_WINDOW_MS,
  CHANNEL_RESTART_BASE_MS,
  CHANNEL_RESTART_MAX_MS,
  CHANNEL_STABLE_AFTER_MS,
} from "./limits.ts";

/**
 * When to restart a channel process that exited: exponential backoff from CHANNEL_RESTART_BASE_MS, capped at
 * CHANNEL_RESTART_MAX_MS; a child that stayed up CHANNEL_STABLE_AFTER_MS starts over. More than
 * CHANNEL_CRASH_LOOP_RESTARTS exits within CHANNEL_CRASH_LOOP_WINDOW_MS is a crash loop: it is still restarted (at the
 * cap) but reported, so /health and /api/channels show it.
 */
export class ChannelRestartPolicy {
  private exits: number[] = [];
  private consecutive = 0;

  /** Record an exit of a child that started at `startedAt`; returns the delay before the next start. */
  exited(startedAt: number, now: number): number {
    if (now - startedAt >= CHANNEL_STABLE_AFTER_MS) this.consecutive = 0;
    this.exits = this.exits.filter((t) => now - t < CHANNEL_CRASH_LOOP_WINDOW_MS);
    this.exits.push(now);
    const delay = Math.min(CHANNEL_RESTART_MAX_MS, CHANNEL_RESTART_BASE_MS * 2 ** this.consecutive);
    this.consecutive += 1;
    return delay;
  }

  crashLoop(now: number): boolean {
    return this.exits.filter((t) => now - t < CHANNEL_CRASH_LOOP_WINDOW_MS).length > CHANNEL_CRASH_LOOP_RESTARTS;
  }

  reset(): void {
    this.exits = [];
    this.consecutive = 0;
  }
}
