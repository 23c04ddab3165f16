import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { CronStateRow, CronStateStore } from "../../storage/types.ts";
import type { Cancel } from "../../core/timers.ts";
import type { CronTimers } from "./types.ts";

/** How long a claimed run is leased to its runner; another process takes the run over once it expires unrenewed. */
export const CRON_RUN_LEASE_MS = 15_000;
/** A running job's lease is renewed this often (a third of the lease: two renewals may fail before it expires). */
export const CRON_LEASE_RENEW_MS = 5_000;

/**
 * The lease of one running slot: renewed on a timer while the run lasts, with the fencing token its claim got.
 * A renewal refused (the fence is stale: a later slot was claimed, or another process took the run over) is logged
 * with which of them happened; the late finish writes nothing.
 */
export class RunLease {
  private cancelRenew: Cancel | null = null;
  private stopped = false;

  constructor(
    private readonly store: CronStateStore,
    private readonly clock: CronTimers,
    private readonly logger: Logger,
    readonly jobId: string,
    readonly fence: number,
    private readonly slot: number,
    private readonly leaseMs: number,
  ) {
    this.arm();
  }

  private arm(): void {
    if (this.stopped) return;
    this.cancelRenew = this.clock.after(() => void this.renew(), Math.max(1, Math.floor(this.leaseMs / 3)));
  }

  private async renew(): Promise<void> {
    if (this.stopped) return;
    try {
      const kept = await this.store.renew(this.jobId, this.fence, this.clock.dateNow() + this.leaseMs);
      if (!kept) {
        const why = await staleFence(this.store, this.jobId, this.slot, this.leaseMs);
        this.logger.warn(`cron run lease lost: ${why}`, { job: this.jobId, fence: this.fence });
        return;
      }
    } catch (error) {
      this.logger.warn("cron run lease not renewed; will retry", { job: this.jobId, error: errorMessage(error) });
    }
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.cancelRenew?.();
    this.cancelRenew = null;
  }
}

/**
 * Why a write of the run of `slot` was refused for a stale fence, and what to do next, from the job's record as it
 * is now: a later slot claimed while the run went on (by this process or another), or the run taken over by another
 * process after its lease lapsed.
 */
export async function staleFence(store: CronStateStore, jobId: string, slot: number, leaseMs: number): Promise<string> {
  let row: CronStateRow | null;
  try {
    row = await store.get(jobId);
  } catch (error) {
    return `a newer claim superseded this run (the job's record could not be read: ${errorMessage(error)})`;
  }
  if (!row) return "the job's record was deleted while this run went on (the job was removed); nothing to do";
  if (row.last_slot > slot)
    return (
      `the job's slot ${new Date(row.last_slot).toISOString()} was claimed while this run of ${new Date(slot).toISOString()} still went ` +
      "(the run outlasted the job's interval, or the clock jumped forward); shorten the run or space the schedule out"
    );
  return (
    `its lease was not renewed within ${leaseMs} ms and ${row.lease_owner ? `process ${row.lease_owner}` : "another process"} took the run over, ` +
    "so this slot ran twice; check that this process is not stalled (a blocked event loop, a suspended machine) and reaches its database"
  );
}
