import { hostname } from "node:os";
import type { EventPublisher } from "../../core/events.ts";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { createLogger } from "../../core/logger.ts";
import type { Logger } from "../../core/logger.ts";
import { newId } from "../../core/ids.ts";
import { attempt, eachInOrder, then, type Awaitable } from "../../core/awaitable.ts";
import type { CronStateStore } from "../../storage/types.ts";
import { BACKGROUND_TIMERS, type Cancel } from "../../core/timers.ts";
import { CRON_RUN_LEASE_MS } from "./lease.ts";
import { CronRuns, type JobState } from "./runs.ts";
import { CronSchedule, type SlotPlan } from "../../core/cron/index.ts";
import type { CronTimers, CronJob, CronJobStatus, CronRunRecord } from "./types.ts";

export { CRON_RUN_TIMEOUT_MS } from "./runs.ts";
/** Jobs one scheduler accepts. */
export const CRON_MAX_JOBS = 1024;
/** Missed slots counted for the coalescing log line. */
const COALESCE_COUNT_CAP = 1000;

export interface CronSchedulerOptions {
  /** Where slots are claimed: the workspace's cron state store (PostgreSQL shares them across hosts). */
  store: CronStateStore;
  /** Who this scheduler is in run leases (default: host, pid and a random part). */
  owner?: string;
  /** Run lease length (CRON_RUN_LEASE_MS). */
  leaseMs?: number;
  bus?: EventPublisher;
  clock?: CronTimers;
  /** Evaluate schedules in UTC (default: local time, like cron). */
  utc?: boolean;
  runTimeoutMs?: number;
  logger?: Logger;
}

/**
 * Runs the current generation's cron jobs; owned by the runtime, so it outlives generations. Policy:
 * - A job seen for the first time starts from "now": nothing before it is owed.
 * - Each due slot is claimed in the state store before it runs, so across reloads, restarts and processes sharing
 *   the store (replicas on PostgreSQL) a slot fires at most once.
 * - A claimed run holds a lease, renewed while it runs; when its process dies, another process sharing the store
 *   takes the run over once the lease expires, with a new fencing token (the dead runner's late writes are refused).
 * - Slots missed while no process was running (or while the process slept) are coalesced: on start, setJobs or
 *   wake-up, the latest missed slot fires once and the skipped count is logged. Nothing is skipped silently.
 * - A job whose schedule changed, or that was removed by setJobs and comes back, restarts from "now" (logged).
 * - Runs of one job never overlap: a slot that comes due while the previous run is in progress is claimed, not run,
 *   and reported (log, counter, bus event with ok=false).
 * One timer is armed for the earliest due slot; an idle scheduler does no work. Store calls are serialized on one
 * chain (SQLite answers at once, PostgreSQL later); idle() waits for it and for runs in progress.
 */
export class CronScheduler {
  private readonly store: CronStateStore;
  private readonly clock: CronTimers;
  private readonly logger: Logger;
  private readonly states = new Map<string, JobState>();
  private readonly runs: CronRuns;
  private cancelTick: Cancel | null = null;
  private started = false;
  private chain: Promise<void> = Promise.resolve();
  /** Store operations still to finish on the chain (0: the next one may run at once). */
  private queued = 0;
  private readonly owner: string;
  private readonly leaseMs: number;

  constructor(private readonly options: CronSchedulerOptions) {
    this.store = options.store;
    this.clock = options.clock ?? BACKGROUND_TIMERS;
    this.logger = options.logger ?? createLogger("plugins.cron");
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${newId("cron").slice(5, 13)}`;
    this.leaseMs = options.leaseMs ?? CRON_RUN_LEASE_MS;
    this.runs = new CronRuns({
      store: this.store,
      clock: this.clock,
      logger: this.logger,
      leaseMs: this.leaseMs,
      ...(options.bus ? { bus: options.bus } : {}),
      ...(options.runTimeoutMs !== undefined ? { runTimeoutMs: options.runTimeoutMs } : {}),
    });
  }

  /**
   * Run `op` after every earlier store operation: at once when none is pending and it completes synchronously (the
   * SQLite store), else on the chain. Failures are logged; the chain goes on.
   */
  private enqueue(what: string, op: () => Awaitable<void>): void {
    const run = () =>
      attempt(op, (error: unknown) => {
        this.logger.error(`cron ${what} failed; will retry at the next slot`, { error: errorMessage(error) });
      });
    if (this.queued === 0) {
      const result = run();
      if (!(result instanceof Promise)) return;
      this.queued++;
      this.chain = result.finally(() => void this.queued--);
      return;
    }
    this.queued++;
    this.chain = this.chain.then(run).finally(() => void this.queued--);
  }

  /** Replace the job set (a reload passes the new generation's jobs). Validates everything before changing anything. */
  setJobs(jobs: readonly CronJob[]): void {
    const parsed = this.validate(jobs);
    const now = this.clock.dateNow();
    const wanted = new Set(jobs.map((j) => j.id));
    for (const id of [...this.states.keys()]) {
      if (wanted.has(id)) continue;
      this.states.delete(id);
      this.enqueue("state update", () => this.store.markRemoved(id, now));
    }
    for (const job of jobs) {
      const schedule = parsed.get(job.id)!;
      const existing = this.states.get(job.id);
      if (existing && existing.schedule.source === job.schedule) {
        existing.job = job;
        continue;
      }
      if (existing) this.states.delete(job.id);
      this.enqueue("state update", () => this.register(job, schedule, existing, now));
    }
    if (this.started) this.enqueue("tick", () => this.tick());
  }

  private register(job: CronJob, schedule: SlotPlan, existing: JobState | undefined, now: number): Awaitable<void> {
    const stored = then(this.store.ensure(job.id, job.schedule, now), (row) => {
      if (row.schedule === job.schedule && row.removed_at === null) return row;
      this.logger.info("cron job restarts from now (schedule changed or job re-added)", {
        job: job.id,
        schedule: job.schedule,
        previous: row.schedule,
      });
      return this.store.rebaseline(job.id, job.schedule, now);
    });
    return then(stored, (row) => void this.states.set(job.id, {
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
      watch: null,
    }));
  }

  /** Fire missed slots (coalesced) and arm the timer. */
  start(): void {
    this.started = true;
    this.enqueue("tick", () => this.tick());
  }

  /** Disarm the timer and wait for runs in progress. */
  async stop(): Promise<void> {
    this.started = false;
    this.cancelTick?.();
    this.cancelTick = null;
    await this.idle();
  }

  /** Resolves when no run is in progress. */
  async idle(): Promise<void> {
    for (;;) {
      const chain = this.chain;
      await chain;
      if (this.runs.busy) await this.runs.idle();
      else if (chain === this.chain) return;
    }
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
    return this.runs.execute(state, null, 1, null);
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

  private validate(jobs: readonly CronJob[]): Map<string, SlotPlan> {
    if (jobs.length > CRON_MAX_JOBS) {
      throw new PrxError("LIMIT_EXCEEDED", `${jobs.length} cron jobs given; at most ${CRON_MAX_JOBS} are allowed`);
    }
    const parsed = new Map<string, SlotPlan>();
    for (const job of jobs) {
      const slash = job.id.indexOf("/");
      if (slash <= 0 || slash === job.id.length - 1) {
        throw new PrxError("BAD_REQUEST", `cron job id "${job.id}" must be "<plugin>/<capability>"`);
      }
      if (parsed.has(job.id)) throw new PrxError("CONFLICT", `cron job "${job.id}" is given twice`);
      // a job carried over by a reload keeps its parsed schedule: a swap parses only what changed
      const known = this.states.get(job.id)?.schedule;
      if (job.plan && job.plan.source !== job.schedule) {
        throw new PrxError("BAD_REQUEST", `cron job "${job.id}": its schedule must be its plan's source "${job.plan.source}"`);
      }
      parsed.set(job.id, known?.source === job.schedule ? known : (job.plan ?? new CronSchedule(job.schedule, { utc: this.options.utc })));
    }
    return parsed;
  }

  /** Claim and fire every due job (and take over runs whose lease expired), then arm one timer for the earliest. */
  private tick(): Awaitable<void> {
    this.cancelTick?.();
    this.cancelTick = null;
    if (!this.started) return;
    const now = this.clock.dateNow();
    const fired = eachInOrder([...this.states.values()], (state) =>
      then(state.nextDue !== null && state.nextDue <= now ? this.fireDue(state, now) : undefined, () =>
        state.watch !== null && state.watch.at <= now ? this.takeOver(state, state.watch.slot, now) : undefined,
      ),
    );
    return then(fired, () => this.arm());
  }

  /** One timer for the earliest due time, measured from the clock now (store calls may have taken a while). */
  private arm(): void {
    if (!this.started) return;
    let earliest: number | null = null;
    for (const state of this.states.values()) {
      for (const due of [state.nextDue, state.watch?.at ?? null]) {
        if (due !== null && (earliest === null || due < earliest)) earliest = due;
      }
    }
    if (earliest === null) return;
    this.cancelTick = this.clock.after(() => this.enqueue("tick", () => this.tick()), earliest - this.clock.dateNow());
  }

  private fireDue(state: JobState, now: number): Awaitable<void> {
    const id = state.job.id;
    const slot = state.schedule.prevAtOrBefore(now)!.getTime();
    const claimed = attempt(
      () => then(this.store.claim(id, slot, now, this.owner, now + this.leaseMs), (claim) => this.claimed(state, slot, now, claim)),
      (error) => {
        this.logger.error("cron state update failed; will retry at the next slot", { job: id, error: errorMessage(error) });
        state.lastSlot = slot;
      },
    );
    return then(claimed, () => {
      state.nextDue = state.schedule.nextAfter(state.lastSlot)?.getTime() ?? null;
    });
  }

  private claimed(state: JobState, slot: number, now: number, claim: { fence: number } | null): Awaitable<void> {
    const id = state.job.id;
    if (claim) {
      const due = state.schedule.slotsBetween(state.lastSlot, slot, COALESCE_COUNT_CAP).length;
      state.lastSlot = slot;
      state.watch = null;
      if (due > 1) {
        this.logger.info("cron slots missed while not running; firing once for the latest", {
          job: id,
          missed: due >= COALESCE_COUNT_CAP ? `${COALESCE_COUNT_CAP}+` : due,
          slot: new Date(slot).toISOString(),
        });
      }
      const late = now - slot;
      if (state.job.graceMs !== undefined && late > state.job.graceMs) {
        this.runs.skip(state, slot, Math.max(1, due), claim.fence, `missed: found due ${late} ms after its time, past the ${state.job.graceMs} ms grace`);
        return;
      }
      this.runs.fire(state, slot, Math.max(1, due), claim.fence);
      return;
    }
    // Another process (or an earlier run of this one) already claimed it: watch its lease.
    const read = then(this.store.get(id), (row) => row ?? this.store.ensure(id, state.job.schedule, now));
    return then(read, (row) => {
      state.lastSlot = Math.max(row.last_slot, slot);
      this.watchLease(state, row.last_slot, row.lease_owner, row.lease_until);
    });
  }

  private watchLease(state: JobState, slot: number, owner: string | null, until: number | null): void {
    state.watch = owner !== null && owner !== this.owner && until !== null ? { slot, at: until + 1 } : null;
  }

  /** The run of `slot` by another process was not renewed in time: take it over with a new fence and run it. */
  private takeOver(state: JobState, slot: number, now: number): Awaitable<void> {
    const id = state.job.id;
    state.watch = null;
    const check = () =>
      then(this.store.takeOver(id, slot, now, this.owner, now + this.leaseMs), (claim) => {
        if (claim) {
          this.logger.warn("cron run taken over: its runner stopped renewing its lease", { job: id, slot: new Date(slot).toISOString() });
          this.runs.fire(state, slot, 1, claim.fence);
          return;
        }
        return then(this.store.get(id), (row) => {
          if (row && row.last_slot === slot) this.watchLease(state, slot, row.lease_owner, row.lease_until);
        });
      });
    return attempt(check, (error) => this.logger.error("cron takeover check failed", { job: id, error: errorMessage(error) }));
  }
}
