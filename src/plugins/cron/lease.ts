import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { CronStateStore } from "../../storage/types.ts";
import type { CronClock } from "./types.ts";

/** How long a claimed run is leased to its runner; another process takes the run over once it expires unrenewed. */
export const CRON_RUN_LEASE_MS = 15_000;
/** A running job's lease is renewed this often (a third of the lease: two renewals may fail before it expires). */
export const CRON_LEASE_RENEW_MS = 5_000;

/**
 * The lease of one running slot: renewed on a timer while the run lasts, with the fencing token its claim got.
 * A renewal refused (the fence is stale: another process took over) is logged; the late finish writes nothing.
 */
export class RunLease {
  private timer: { cancel(): void } | null = null;
  private stopped = false;

  constructor(
    private readonly store: CronStateStore,
    private readonly clock: CronClock,
    private readonly logger: Logger,
    readonly jobId: string,
    readonly fence: number,
    private readonly leaseMs: number,
  ) {
    this.arm();
  }

  private arm(): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimer(() => void this.renew(), Math.max(1, Math.floor(this.leaseMs / 3)));
  }

  private async renew(): Promise<void> {
    if (this.stopped) return;
    try {
      const kept = await this.store.renew(this.jobId, this.fence, this.clock.now() + this.leaseMs);
      if (!kept) {
        this.logger.warn("cron run lease lost: another process took the run over", { job: this.jobId, fence: this.fence });
        return;
      }
    } catch (error) {
      this.logger.warn("cron run lease not renewed; will retry", { job: this.jobId, error: errorMessage(error) });
    }
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
  }
}
