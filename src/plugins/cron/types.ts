import type { SlotPlan } from "../../core/cron/index.ts";
import type { Timers } from "../../core/timers.ts";

/** A cron capability of one plugin as the current generation provides it, or a job of the cron tool. */
export interface CronJob {
  /** "<owner>/<name>" ("<plugin>/<capability>"); the key of its last-fire record in the cron state store. */
  id: string;
  /** 5- or 6-field cron expression (or a macro such as @hourly); with `plan`, the plan's source. */
  schedule: string;
  /** Slots of another kind (an instant, an interval, a cron expression in a time zone) instead of parsing `schedule`. */
  plan?: SlotPlan;
  /**
   * A slot found due later than this after its time (missed while no process ran) is recorded as missed, not run.
   * Without it the latest missed slot always runs once.
   */
  graceMs?: number;
  /**
   * Calls the guest's `run` export; resolves with its output. `slot`: the time of the claimed slot this run is for
   * (the same when another process takes the run over); absent for a run outside the schedule.
   */
  run(slot?: number): Promise<string>;
  /** Called once a scheduled run's outcome is recorded (a one-shot job removes itself here). */
  done?(record: CronRunRecord): void | Promise<void>;
  /** Overrides the scheduler's run timeout (CRON_RUN_TIMEOUT_MS). */
  timeoutMs?: number;
}

/**
 * The clock (Date.now's: slots are wall-clock times) and the one-shot timers cron runs on; BACKGROUND_TIMERS unless
 * given, so an idle scheduler neither spins nor keeps a one-shot CLI alive (tests inject their own).
 */
export type CronTimers = Pick<Timers, "dateNow" | "after">;

/** One run of a job, as logged, published on `prx.cron.<plugin>` (without durationMs) and returned by runNow. */
export interface CronRunRecord {
  job: string;
  /** ISO time of the slot this run is for; null for a manual run (cron_run probe). */
  slot: string | null;
  ok: boolean;
  output?: string;
  error?: string;
  /** How many due slots this run stands for (> 1 when missed slots were coalesced). */
  coalesced: number;
  durationMs: number;
}

export interface CronJobStatus {
  id: string;
  schedule: string;
  /** ISO time of the next slot this process will try to claim; null when the schedule never fires again. */
  nextDue: string | null;
  /** ISO time of the last slot claimed (by any process sharing the database), or the baseline. */
  lastSlot: string;
  running: boolean;
  fired: number;
  ok: number;
  errors: number;
  /** Slots claimed while the previous run of the job was still in progress (not run; logged and published). */
  skipped: number;
  lastRun: { slot: string | null; ok: boolean; at: string } | null;
  lastError: { message: string; at: string } | null;
}
