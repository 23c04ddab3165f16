import type { Database } from "bun:sqlite";
import type { EventPublisher } from "../../core/events.ts";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { createLogger } from "../../core/logger.ts";
import type { Logger } from "../../core/logger.ts";
import { CRON_MAX_TIMER_MS, systemClock, withTimeout } from "./clock.ts";
import { CronSchedule } from "./schedule.ts";
import { cronResultPayload } from "./result.ts";
import { CronStateStore } from "./state.ts";
import type { CronClock, CronJob, CronJobStatus, CronRunRecord } from "./types.ts";

/** Default time a job's run may take before it is recorded as failed (the sandbox enforces its own limit too). */
export const CRON_RUN_TIMEOUT_MS = 60_000;
/** Jobs one scheduler accepts. */
export const CRON_MAX_JOBS = 1024;
/** Missed slots counted for the coalescing log line. */
const COALESCE_COUNT_CAP = 1000;

interface JobState {
  job: CronJob;
  schedule: CronSchedule;
  lastSlot: number;
  nextDue: number | null;
  running: Promise<void> | null;
  fired: number;
  ok: number;
  errors: number;
  skipped: number;
  lastRun: CronJobStatus["lastRun"];
  lastError: CronJobStatus["lastError"];
}

export interface CronSchedulerOptions {
  db: Database;
  bus?: EventPublisher;
  clock?: CronClock;
  /** Evaluate schedules in UTC (default: local time, like cron). */
  utc?: boolean;
  runTimeoutMs?: number;
  logger?: Logger;
}

/**
 * Runs the current generation's cron jobs; owned by the runtime, so it outlives generations. Policy:
 * - A job seen for the first time starts from "now": nothing before it is owed.
 * - Each due slot is claimed in SQLite before it runs, so across reloads, restarts and processes sharing the
 *   workspace a slot fires at most once.
 * - Slots missed while no process was running (or while the process slept) are coalesced: on start, setJobs or
 *   wake-up, the latest missed slot fires once and the skipped count is logged. Nothing is skipped silently.
 * - A job whose schedule changed, or that was removed by setJobs and comes back, restarts from "now" (logged).
 * - Runs of one job never overlap: a slot that comes due while the previous run is in progress is claimed, not run,
 *   and reported (log, counter, bus event with ok=false).
 * One timer is armed for the earliest due slot; an idle scheduler does no work.
 */
export class CronScheduler {
  private readonly store: CronStateStore;
  private readonly clock: CronClock;
  private readonly logger: Logger;
  private readonly states = new Map<string, JobState>();
  private readonly inflight = new Set<Promise<void>>();
  private timer: { cancel(): void } | null = null;
  private started = false;

  constructor(private readonly options: CronSchedulerOptions) {
    this.store = new CronStateStore(options.db);
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? createLogger("plugins.cron");
  }

  /** Replace the job set (a reload passes the new generation's jobs). Validates everything before changing anything. */
  setJobs(jobs: readonly CronJob[]): void {
    const parsed = this.validate(jobs);
    const now = this.clock.now();
    const wanted = new Set(jobs.map((j) => j.id));
    for (const id of [...this.states.keys()]) {
      if (wanted.has(id)) continue;
      this.states.delete(id);
      this.store.markRemoved(id, now);
    }
    for (const job of jobs) {
      const schedule = parsed.get(job.id)!;
      const existing = this.states.get(job.id);
      if (existing && existing.schedule.source === job.schedule) {
        existing.job = job;
        continue;
      }
      let row = this.store.ensure(job.id, job.schedule, now);
      if (row.schedule !== job.schedule || row.removed_at !== null) {
        this.logger.info("cron job restarts from now (schedule changed or job re-added)", {
          job: job.id,
          schedule: job.schedule,
          previous: row.schedule,
        });
        row = this.store.rebaseline(job.id, job.schedule, now);
      }
      this.states.set(job.id, {
        job,
        schedule,
        lastSlot: row.last_slot,
        nextDue: schedule.nextAfter(row.last_slot)?.getTime() ?? null,
        running: existing?.running ?? null,
        fired: existing?.fired ?? 0,
        ok: existing?.ok ?? 0,
        errors: existing?.errors ?? 0,
        skipped: existing?.skipped ?? 0,
        lastRun: existing?.lastRun ?? null,
        lastError: existing?.lastError ?? null,
      });
    }
    if (this.started) this.tick();
  }

  /** Fire missed slots (coalesced) and arm the timer. */
  start(): void {
    this.started = true;
    this.tick();
  }

  /** Disarm the timer and wait for runs in progress. */
  async stop(): Promise<void> {
    this.started = false;
    this.timer?.cancel();
    this.timer = null;
    await this.idle();
  }

  /** Resolves when no run is in progress. */
  async idle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  /** Run a job now, outside its schedule (the cron_run probe). Does not claim a slot. */
  async runNow(id: string): Promise<CronRunRecord> {
    const state = this.states.get(id);
    if (!state) {
      throw new PrxError("PLUGIN_NOT_FOUND", `no cron job "${id}"`, {
        hint: `known jobs: ${[...this.states.keys()].join(", ") || "(none)"}`,
        status: 404,
      });
    }
    return this.execute(state, null, 1);
  }

  status(): CronJobStatus[] {
    return [...this.states.values()].map((s) => ({
      id: s.job.id,
      schedule: s.job.schedule,
      nextDue: s.nextDue === null ? null : new Date(s.nextDue).toISOString(),
      lastSlot: new Date(s.lastSlot).toISOString(),
      running: s.running !== null,
      fired: s.fired,
      ok: s.ok,
      errors: s.errors,
      skipped: s.skipped,
      lastRun: s.lastRun,
      lastError: s.lastError,
    }));
  }

  private validate(jobs: readonly CronJob[]): Map<string, CronSchedule> {
    if (jobs.length > CRON_MAX_JOBS) {
      throw new PrxError("LIMIT_EXCEEDED", `${jobs.length} cron jobs given; at most ${CRON_MAX_JOBS} are allowed`);
    }
    const parsed = new Map<string, CronSchedule>();
    for (const job of jobs) {
      const slash = job.id.indexOf("/");
      if (slash <= 0 || slash === job.id.length - 1) {
        throw new PrxError("BAD_REQUEST", `cron job id "${job.id}" must be "<plugin>/<capability>"`);
      }
      if (parsed.has(job.id)) throw new PrxError("CONFLICT", `cron job "${job.id}" is given twice`);
      parsed.set(job.id, new CronSchedule(job.schedule, { utc: this.options.utc }));
    }
    return parsed;
  }

  /** Claim and fire every due job, then arm one timer for the earliest next slot. */
  private tick(): void {
    this.timer?.cancel();
    this.timer = null;
    if (!this.started) return;
    const now = this.clock.now();
    for (const state of this.states.values()) {
      if (state.nextDue === null || state.nextDue > now) continue;
      this.fireDue(state, now);
    }
    let earliest: number | null = null;
    for (const state of this.states.values()) {
      if (state.nextDue !== null && (earliest === null || state.nextDue < earliest)) earliest = state.nextDue;
    }
    if (earliest === null) return;
    this.timer = this.clock.setTimer(() => this.tick(), Math.min(Math.max(0, earliest - now), CRON_MAX_TIMER_MS));
  }

  private fireDue(state: JobState, now: number): void {
    const id = state.job.id;
    const slot = state.schedule.prevAtOrBefore(now)!.getTime();
    try {
      if (this.store.claim(id, slot, now)) {
        const due = state.schedule.slotsBetween(state.lastSlot, slot, COALESCE_COUNT_CAP).length;
        state.lastSlot = slot;
        if (due > 1) {
          this.logger.info("cron slots missed while not running; firing once for the latest", {
            job: id,
            missed: due >= COALESCE_COUNT_CAP ? `${COALESCE_COUNT_CAP}+` : due,
            slot: new Date(slot).toISOString(),
          });
        }
        this.fire(state, slot, Math.max(1, due));
      } else {
        // Another process (or an earlier run of this one) already claimed it.
        const row = this.store.get(id) ?? this.store.ensure(id, state.job.schedule, now);
        state.lastSlot = Math.max(row.last_slot, slot);
      }
    } catch (error) {
      this.logger.error("cron state update failed; will retry at the next slot", {
        job: id,
        error: errorMessage(error),
      });
      state.lastSlot = slot;
    }
    state.nextDue = state.schedule.nextAfter(state.lastSlot)?.getTime() ?? null;
  }

  private fire(state: JobState, slot: number, coalesced: number): void {
    if (state.running) {
      state.skipped++;
      const error = "skipped: the previous run of this job is still in progress";
      this.logger.warn("cron slot skipped", { job: state.job.id, slot: new Date(slot).toISOString() });
      this.publish(state, {
        job: state.job.id,
        slot: new Date(slot).toISOString(),
        ok: false,
        error,
        coalesced,
        durationMs: 0,
      });
      return;
    }
    void this.execute(state, slot, coalesced);
  }

  private execute(state: JobState, slot: number | null, coalesced: number): Promise<CronRunRecord> {
    const job = state.job;
    const timeoutMs = job.timeoutMs ?? this.options.runTimeoutMs ?? CRON_RUN_TIMEOUT_MS;
    const slotIso = slot === null ? null : new Date(slot).toISOString();
    const result = (async (): Promise<CronRunRecord> => {
      const started = performance.now();
      let record: CronRunRecord;
      try {
        const output = await withTimeout(job.run(), timeoutMs, job.id);
        record = { job: job.id, slot: slotIso, ok: true, output, coalesced, durationMs: performance.now() - started };
      } catch (error) {
        const message = errorMessage(error);
        record = {
          job: job.id,
          slot: slotIso,
          ok: false,
          error: message,
          coalesced,
          durationMs: performance.now() - started,
        };
      }
      this.finish(state, record);
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

  private finish(state: JobState, record: CronRunRecord): void {
    const at = this.clock.now();
    state.fired++;
    state.lastRun = { slot: record.slot, ok: record.ok, at: new Date(at).toISOString() };
    if (record.ok) {
      state.ok++;
      this.logger.info("cron job ran", { job: record.job, slot: record.slot, ms: Math.round(record.durationMs) });
    } else {
      state.errors++;
      state.lastError = { message: record.error!, at: new Date(at).toISOString() };
      this.logger.warn("cron job failed", { job: record.job, slot: record.slot, error: record.error });
    }
    try {
      this.store.finish(record.job, at, record.ok, record.error ?? null);
    } catch (error) {
      this.logger.error("cron state update failed", { job: record.job, error: errorMessage(error) });
    }
    this.publish(state, record);
  }

  private publish(state: JobState, record: CronRunRecord): void {
    const bus = this.options.bus;
    if (!bus) return;
    const plugin = state.job.id.slice(0, state.job.id.indexOf("/"));
    try {
      bus.publish(`prx.cron.${plugin}`, cronResultPayload(record));
    } catch (error) {
      this.logger.warn("cron result not published", { job: record.job, error: errorMessage(error) });
    }
  }
}
