import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import { RestartPolicy } from "../../core/supervise/index.ts";
import type { Lifecycle } from "./supervisor/lifecycle.ts";
import type { SupervisorStats } from "./supervisor/stats.ts";
import { REMOTE_MAX_RESTARTS_PER_MINUTE, REMOTE_RESTART_LIMITS } from "./limits.ts";

/**
 * Restarts of one plugin after a crash or a kill: the delay from REMOTE_RESTART_LIMITS, then status failed once it
 * crashed too often. `spawn` starts a new worker and resolves when it is ready.
 */
export class Restarts {
  private readonly policy = new RestartPolicy(REMOTE_RESTART_LIMITS);
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
    const { restart, delayMs } = this.policy.exited();
    if (!restart) {
      const last = this.stats.lastError;
      const reason = `gave up after ${REMOTE_MAX_RESTARTS_PER_MINUTE} restarts in a minute; last: ${last}`;
      this.log.error(reason);
      this.life.failed(reason);
      return;
    }
    this.life.restarting(`restart in ${delayMs} ms after: ${this.stats.lastError ?? "exit"}`);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.stats.counters.restarts += 1;
      this.spawn().catch((error: unknown) => {
        this.stats.lastError = errorMessage(error);
        this.log.error("restart failed", { error: this.stats.lastError });
        this.schedule();
      });
    }, delayMs);
  }

  cancel(): void {
    this.cancelled = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
