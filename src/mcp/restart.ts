import {
  MCP_MAX_RESTARTS_PER_WINDOW,
  MCP_RESTART_BASE_DELAY_MS,
  MCP_RESTART_MAX_DELAY_MS,
  MCP_RESTART_WINDOW_MS,
} from "./limits.ts";

/** Wait before attempt `n` (1-based) after a crash or a failed start: doubling from the base, capped. */
export function restartDelay(attempt: number): number {
  const n = Math.max(1, attempt);
  return Math.min(MCP_RESTART_MAX_DELAY_MS, MCP_RESTART_BASE_DELAY_MS * 2 ** Math.min(n - 1, 30));
}

/**
 * Crashes of one server in the last MCP_RESTART_WINDOW_MS. Up to MCP_MAX_RESTARTS_PER_WINDOW of them are restarted
 * on their own; past that the server stays down until a call asks for it again (after the backoff).
 */
export class CrashWindow {
  private readonly times: number[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** Record a crash; true while the server may still be restarted on its own. */
  record(): boolean {
    const at = this.now();
    this.times.push(at);
    while (this.times.length > 0 && this.times[0]! <= at - MCP_RESTART_WINDOW_MS) this.times.shift();
    return this.times.length <= MCP_MAX_RESTARTS_PER_WINDOW;
  }

  /** Crashes within the window, the one just recorded included. */
  get count(): number {
    return this.times.length;
  }
}
