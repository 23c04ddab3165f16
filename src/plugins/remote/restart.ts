import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { Lifecycle } from "./supervisor/lifecycle.ts";
import type { SupervisorStats } from "./supervisor/stats.ts";
import {
  REMOTE_MAX_RESTARTS_PER_MINUTE,
  REMOTE_RESTART_BACKOFF_BASE_MS,
  REMOTE_RESTART_BACKOFF_MAX_MS,
} from "./limits.ts";

/** Exponential backoff over a sliding minute: null once the plugin crashed too often to restart again. */
export class RestartPolicy {
  private times: number[] = [];

  nextDelay(now = Date.now()): number | null {
    this.times = this.times.filter((t) => now - t < 60_000);
    if (this.times.length >= REMOTE_MAX_RESTARTS_PER_MINUTE) return null;
    const delay = Math.min(REMOTE_RESTART_BACKOFF_MAX_MS, REMOTE_RESTART_BACKOFF_BASE_MS * 2 ** this.times.length);
    this.times.push(now);
    return delay;
  }
}

/** Callers waiting for the plugin to become ready (again). */
export class ReadyGate {
  private waiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];

  wait(timeoutMs: number, onTimeout: () => Error): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: () => (clearTimeout(timer), resolve()),
        reject: (e: Error) => (clearTimeout(timer), reject(e)),
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(onTimeout());
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  open(): void {
    for (const w of this.waiters.splice(0)) w.resolve();
  }

  fail(error: Error): void {
    for (const w of this.waiters.splice(0)) w.reject(error);
  }
}

/** Wait for `promise` at most `ms`; the timer is cleared so it never keeps the process alive. */
export async function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/**
 * Restarts of one plugin after a crash or a kill: backoff from RestartPolicy, then status failed once it crashed
 * too often. `spawn` starts a new worker and resolves when it is ready.
 */
export class Restarts {
  private readonly policy = new RestartPolicy();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private cancelled = false;

  constructor(
    private readonly log: Logger,
    private readonly life: Lifecycle,
    private readonly stats: SupervisorStats,
    private readonly spawn: () => Promise<void>,
  ) {}

  schedule(): void {
    if (this.cancelled) return;
    const delay = this.policy.nextDelay();
    if (delay === null) {
      const last = this.stats.lastError;
      const reason = `gave up after ${REMOTE_MAX_RESTARTS_PER_MINUTE} restarts in a minute; last: ${last}`;
      this.log.error(reason);
      this.life.failed(reason);
      return;
    }
    this.life.restarting(`restart in ${delay} ms after: ${this.stats.lastError ?? "exit"}`);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.stats.counters.restarts += 1;
      this.spawn().catch((error: unknown) => {
        this.stats.lastError = errorMessage(error);
        this.log.error("restart failed", { error: this.stats.lastError });
        this.schedule();
      });
    }, delay);
  }

  cancel(): void {
    this.cancelled = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
