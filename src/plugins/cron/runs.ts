import type { EventPublisher } from "../../core/events.ts";
import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { CronStateStore } from "../../storage/types.ts";
import { withTimeout } from "./run-timeout.ts";
import { RunLease, staleFence } from "./lease.ts";
import { cronResultPayload } from "./result.ts";
import type { SlotPlan } from "../../core/cron/index.ts";
import type { CronTimers, CronJob, CronJobStatus, CronRunRecord } from "./types.ts";

/** Default time a job's run may take before it is recorded as failed (the sandbox enforces its own limit too). */
export const CRON_RUN_TIMEOUT_MS = 60_000;

/** What the scheduler knows of one job. */
export interface JobState {
  job: CronJob;
  schedule: SlotPlan;
  lastSlot: number;
  nextDue: number | null;
  running: Promise<void> | null;
  fired: number;
  ok: number;
  errors: number;
  skipped: number;
  lastRun: CronJobStatus["lastRun"];
  lastError: CronJobStatus["lastError"];
  /** A slot another process claimed and is running: take it over at `at` if its lease was not renewed. */
  watch: { slot: number; at: number } | null;
}

export interface CronRunsOptions {
  store: CronStateStore;
  clock: CronTimers;
  logger: Logger;
  bus?: EventPublisher;
  leaseMs: number;
  runTimeoutMs?: number;
}

/**
 * Running claimed slots: each run under its lease (renewed while it runs), its outcome recorded with the claim's
 * fence (refused when another process took the run over), counted, logged and published on `prx.cron.<plugin>`.
 */
export class CronRuns {
  private readonly inflight = new Set<Promise<void>>();

  constructor(private readonly o: CronRunsOptions) {}

  /** Resolves when no run is in progress. */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  get busy(): boolean {
    return this.inflight.size > 0;
  }

  /** Run a claimed slot, unless the previous run of the job is still going (then it is reported, not run). */
  fire(state: JobState, slot: number, coalesced: number, fence: number): void {
    if (state.running) {
      this.skip(state, slot, coalesced, fence, "skipped: the previous run of this job is still in progress");
      return;
    }
    void this.execute(state, slot, coalesced, fence);
  }

  /** A claimed slot not run (reported, counted, recorded with the claim's fence). */
  skip(state: JobState, slot: number, coalesced: number, fence: number, error: string): void {
    state.skipped++;
    this.o.logger.warn("cron slot skipped", { job: state.job.id, slot: new Date(slot).toISOString(), reason: error });
    this.publish(state, { job: state.job.id, slot: new Date(slot).toISOString(), ok: false, error, coalesced, durationMs: 0 });
    void this.record(state.job.id, slot, fence, this.o.clock.dateNow(), false, error);
  }

  /** Run now: a claimed slot (with its fence) or, with slot and fence null, outside the schedule (the cron_run probe). */
  execute(state: JobState, slot: number | null, coalesced: number, fence: number | null): Promise<CronRunRecord> {
    const job = state.job;
    const timeoutMs = job.timeoutMs ?? this.o.runTimeoutMs ?? CRON_RUN_TIMEOUT_MS;
    const slotIso = slot === null ? null : new Date(slot).toISOString();
    const lease = fence === null || slot === null ? null : new RunLease(this.o.store, this.o.clock, this.o.logger, job.id, fence, slot, this.o.leaseMs);
    const result = (async (): Promise<CronRunRecord> => {
      const started = performance.now();
      let record: CronRunRecord;
      try {
        const output = await withTimeout(slot === null ? job.run() : job.run(slot), timeoutMs, job.id);
        record = { job: job.id, slot: slotIso, ok: true, output, coalesced, durationMs: performance.now() - started };
      } catch (error) {
        record = { job: job.id, slot: slotIso, ok: false, error: errorMessage(error), coalesced, durationMs: performance.now() - started };
      }
      lease?.stop();
      await this.finish(state, record, slot, fence);
      return record;
    })();
    const done = result.then(() => undefined);
    if (slot !== null) state.running = done;
    this.inflight.add(done);
    void done.finally(() => {
      this.inflight.delete(done);
      if (state.running === done) state.running = null;
    });
    return result;
  }

  private async finish(state: JobState, record: CronRunRecord, slot: number | null, fence: number | null): Promise<void> {
    const at = this.o.clock.dateNow();
    state.fired++;
    state.lastRun = { slot: record.slot, ok: record.ok, at: new Date(at).toISOString() };
    if (record.ok) {
      state.ok++;
      this.o.logger.info("cron job ran", { job: record.job, slot: record.slot, ms: Math.round(record.durationMs) });
    } else {
      state.errors++;
      state.lastError = { message: record.error!, at: new Date(at).toISOString() };
      this.o.logger.warn("cron job failed", { job: record.job, slot: record.slot, error: record.error });
    }
    if (fence !== null && slot !== null) await this.record(record.job, slot, fence, at, record.ok, record.error ?? null);
    this.publish(state, record);
    if (fence === null || !state.job.done) return;
    try {
      await state.job.done(record);
    } catch (error) {
      this.o.logger.error("cron job's after-run step failed", { job: record.job, error: errorMessage(error) });
    }
  }

  /** The outcome in the store, under the claim's fence. */
  private async record(job: string, slot: number, fence: number, at: number, ok: boolean, error: string | null): Promise<void> {
    try {
      if (!(await this.o.store.finish(job, fence, at, ok, error))) {
        this.o.logger.warn(`cron run outcome not recorded: ${await staleFence(this.o.store, job, slot, this.o.leaseMs)}`, { job });
      }
    } catch (failure) {
      this.o.logger.error("cron state update failed", { job, error: errorMessage(failure) });
    }
  }

  private publish(state: JobState, record: CronRunRecord): void {
    const bus = this.o.bus;
    if (!bus) return;
    const plugin = state.job.id.slice(0, state.job.id.indexOf("/"));
    try {
      bus.publish(`prx.cron.${plugin}`, cronResultPayload(record));
    } catch (error) {
      this.o.logger.warn("cron result not published", { job: record.job, error: errorMessage(error) });
    }
  }
}
