import { createLogger, type Logger } from "../../core/logger.ts";
import { errorMessage } from "../../core/errors.ts";
import { BACKGROUND_TIMERS, type Cancel } from "../../core/timers.ts";
import { CRON_MAX_JOBS, CronScheduler, type CronJob, type CronRunRecord, type CronTimers } from "../../plugins/cron/index.ts";
import {
  CRON_TOOL_MISSED_GRACE_MS,
  CRON_TOOL_POLL_MS,
  CRON_TOOL_RUN_DETAIL_CHARS,
  CRON_TOOL_RUN_TIMEOUT_MS,
  CRON_TOOL_RUNS_KEPT,
} from "../../tools/builtins/cron-limits.ts";
import type { StoredJob } from "../../tools/builtins/cron-plan.ts";
import { cronStateKey, removeCronJob } from "../../tools/builtins/cron-store.ts";
import type { CronJobRow, StoreWatch } from "../../storage/types.ts";
import { rerunOnRequest } from "../../core/rerun.ts";
import type { CronJobRunnerOptions } from "./types.ts";
import type { TurnInput } from "../types.ts";
import { CRON_RUN_INBOX, CRON_RUN_KEPT_MS, CRON_RUN_TAIL_MESSAGES, CronRunInbox, startedRun } from "./run-inbox.ts";
import { resumeOf } from "../started-turn.ts";

/**
 * Runs the cron tool's jobs this process delivers, on the plugin cron scheduler: each slot is claimed in the cron
 * state store before it runs, so with several processes or replicas sharing the store a slot fires once; a slot
 * missed while no process ran fires once on start when within CRON_TOOL_MISSED_GRACE_MS. The job list is read again
 * when the store tells of a write by any process (CronJobStore.watch), or every CRON_TOOL_POLL_MS where it cannot
 * (jobs added, removed or asked to run elsewhere); a read that failed is tried again after CRON_TOOL_POLL_MS. A systemEvent's text is added to the session
 * and sent to the chat; an agentTurn's message runs as a turn of the session and its answer is sent. An `at` job is
 * removed once it ran well.
 */
export class CronJobRunner {
  private readonly scheduler: CronScheduler;
  private readonly clock: CronTimers;
  private readonly logger: Logger;
  private cancelRead: Cancel | null = null;
  private stopped = true;
  private syncing: Promise<boolean> | null = null;
  private watch: StoreWatch | null = null;
  private readonly manual = new Set<Promise<void>>();
  /** More jobs than the scheduler takes were found (told once until it is over). */
  private overfull = false;
  /** Jobs whose stored row this version cannot read (told once). */
  private readonly unreadable = new Set<string>();
  /** The jobs last handed to the scheduler, by id, as stored. */
  private known = new Map<string, StoredJob>();

  constructor(private readonly o: CronJobRunnerOptions) {
    this.clock = o.clock ?? BACKGROUND_TIMERS;
    this.logger = o.logger ?? createLogger("agent.cron");
    this.scheduler = new CronScheduler({
      store: o.state,
      clock: this.clock,
      logger: this.logger,
      runTimeoutMs: CRON_TOOL_RUN_TIMEOUT_MS,
      ...(o.owner ? { owner: o.owner } : {}),
      ...(o.leaseMs ? { leaseMs: o.leaseMs } : {}),
    });
  }

  /** Read the jobs, fire what is due (missed slots within the grace once) and keep reading them. */
  async start(): Promise<void> {
    this.stopped = false;
    try {
      await this.o.inbox.prune(CRON_RUN_INBOX, this.clock.dateNow() - CRON_RUN_KEPT_MS);
    } catch (error) {
      this.logger.warn("cron runs delivered long ago not forgotten; tried again at the next start", { error: errorMessage(error) });
    }
    if (this.o.jobs.watch) {
      try {
        this.watch = await this.o.jobs.watch(() => void this.notice());
      } catch (error) {
        this.logger.warn("cron jobs: no change notices, reading them on a timer", { error: errorMessage(error) });
      }
    }
    await this.sync();
    this.scheduler.start();
    if (!this.watch) this.arm();
  }

  /**
   * A write told by the store: read the jobs. A read in progress (start's, a retry's, a manual run's) may predate the
   * write, so the read told of starts after it.
   */
  private readonly notice = rerunOnRequest(async () => {
    if (this.stopped) return;
    await this.syncing;
    if (!(await this.sync()) && !this.stopped) this.retry();
  });

  /** With notices, a failed read is tried again once after CRON_TOOL_POLL_MS. */
  private retry(): void {
    if (this.cancelRead || this.stopped) return;
    this.cancelRead = this.clock.after(() => {
      this.cancelRead = null;
      void this.notice();
    }, this.o.pollMs ?? CRON_TOOL_POLL_MS);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelRead?.();
    this.cancelRead = null;
    await this.watch?.close().catch((error: unknown) => this.logger.warn("cron jobs: unlisten failed", { error: errorMessage(error) }));
    this.watch = null;
    await this.syncing;
    await this.scheduler.stop();
    while (this.manual.size > 0) await Promise.allSettled([...this.manual]);
  }

  /** Resolves when no read of the jobs, store call or run is in progress (tests). */
  async idle(): Promise<void> {
    await this.syncing;
    await this.scheduler.idle();
    while (this.manual.size > 0) await Promise.allSettled([...this.manual]);
  }

  private arm(): void {
    if (this.stopped) return;
    this.cancelRead = this.clock.after(() => {
      void this.sync().finally(() => this.arm());
    }, this.o.pollMs ?? CRON_TOOL_POLL_MS);
  }

  /** Hand the scheduler the jobs as stored now, and take the manual runs asked for; false when they were not read. */
  sync(): Promise<boolean> {
    return (this.syncing ??= this.read()
      .then(
        () => true,
        (error: unknown) => (this.logger.error("cron jobs not read; will retry", { error: errorMessage(error) }), false),
      )
      .finally(() => (this.syncing = null)));
  }

  private async read(): Promise<void> {
    let rows = (await this.o.jobs.list()).filter((row) => this.o.accepts(row));
    if (rows.length > CRON_MAX_JOBS) {
      // adds racing past the tool's workspace limit: the oldest run, the rest wait (never none of them)
      if (!this.overfull) this.logger.error("more cron jobs than one scheduler takes; the newest wait", { jobs: rows.length, max: CRON_MAX_JOBS });
      this.overfull = true;
      rows = rows.slice(0, CRON_MAX_JOBS);
    } else this.overfull = false;
    const next = new Map<string, StoredJob>();
    // the jobs' schemas (and zod) load with the first job: a process with none stays as light as before
    const { readJob } = rows.length > 0 ? await import("../../tools/builtins/cron-plan.ts") : { readJob: null };
    for (const row of rows) {
      try {
        next.set(row.id, this.known.get(row.id) ?? readJob!(row));
      } catch (error) {
        if (!this.unreadable.has(row.id)) this.logger.error("cron job left out", { job: row.id, error: errorMessage(error) });
        this.unreadable.add(row.id);
      }
    }
    this.known = next;
    if (this.stopped) return;
    this.scheduler.setJobs([...next.values()].map((job) => this.jobOf(job)));
    for (const row of rows) {
      if (row.run_requested_at !== null && next.has(row.id) && (await this.o.jobs.takeRun(row.id, row.run_requested_at))) {
        const run = this.run(next.get(row.id)!, null).then(
          () => undefined,
          (error: unknown) => this.logger.warn("cron job's manual run failed", { job: row.id, error: errorMessage(error) }),
        );
        this.manual.add(run);
        void run.finally(() => this.manual.delete(run));
      }
    }
  }

  private jobOf(job: StoredJob): CronJob {
    return {
      id: cronStateKey(job.row.id),
      schedule: job.plan.source,
      plan: job.plan,
      graceMs: CRON_TOOL_MISSED_GRACE_MS,
      run: (slot) => (slot === undefined ? this.run(job, job.plan.prevAtOrBefore(this.clock.dateNow())?.getTime() ?? null, false) : this.run(job, slot, true)),
      ...(job.schedule.kind === "at" ? { done: (record: CronRunRecord) => this.once(job, record) } : {}),
    };
  }

  /** An `at` job that ran well is removed with its slot record; one that failed stays listed with its error. */
  private async once(job: StoredJob, record: CronRunRecord): Promise<void> {
    if (!record.ok) return;
    await removeCronJob(this.o.jobs, this.o.state, job.row.id);
    this.logger.info("cron job done and removed (it runs once)", { job: job.row.id });
  }

  /** Deliver one run of a job and keep its outcome. `claimed`: the run of a slot claimed in the cron state store. */
  private async run(job: StoredJob, slot: number | null, claimed = false): Promise<string> {
    const { row, payload } = job;
    let delivered: string;
    let inboxed: CronRunInbox | undefined;
    try {
      if (payload.kind === "systemEvent") {
        delivered = payload.text;
        if (claimed && slot !== null) {
          inboxed = new CronRunInbox(this.o.inbox, row.id, slot, row.session_id);
          if (!(await this.systemEvent(row, payload.text, inboxed))) {
            await this.keep(row, slot, true, delivered);
            return delivered;
          }
        } else await this.remind(row, payload.text);
      } else if (!claimed || slot === null) {
        delivered = await this.turn(row, payload.message);
      } else {
        inboxed = new CronRunInbox(this.o.inbox, row.id, slot, row.session_id);
        const answer = await this.agentTurn(row, payload.message, inboxed);
        if (answer.sent) {
          await this.keep(row, slot, true, answer.text);
          return answer.text;
        }
        delivered = answer.text;
      }
      if (this.o.deliver) await this.o.deliver(row, delivered);
      if (inboxed) await inboxed.delivered();
    } catch (error) {
      // a failed run is not taken over (its outcome is recorded): its inbox row is done, so it is forgotten in time
      if (inboxed) await inboxed.failed(errorMessage(error), this.logger);
      await this.keep(row, slot, false, errorMessage(error));
      throw error;
    }
    await this.keep(row, slot, true, delivered);
    return delivered;
  }

  /** A systemEvent's text added to the session (with the mark of its run in the inbox, when it has one). */
  private async remind(row: CronJobRow, text: string, run?: CronRunInbox): Promise<void> {
    const agent = (await this.o.sessions.get(row.session_id))?.agent;
    // the text is the whole of the run's write: the session is touched as by a turn's end
    await this.o.sessions.append(row.session_id, [{ role: "assistant", content: text }], { channel: row.channel, agent, endsTurn: run !== undefined, answering: run?.ref });
  }

  /**
   * A scheduled run of a systemEvent job, kept in the run inbox: its text is written to the session with the run's
   * started mark, so a run another process takes over after that delivers the text without writing it again, and one
   * taken over after its delivery does nothing. False: nothing is left to deliver.
   */
  private async systemEvent(row: CronJobRow, text: string, run: CronRunInbox): Promise<boolean> {
    const stage = await run.begin({ text });
    if (stage.kind === "done") {
      this.logger.info("cron reminder taken over after it was delivered: nothing left to do", { job: row.id, run: run.ref.messageId });
      return false;
    }
    if (stage.kind === "fresh") await this.remind(row, text, run);
    else this.logger.info("cron reminder taken over after its text was added to the session: delivering it", { job: row.id, run: run.ref.messageId });
    return true;
  }

  /**
   * A scheduled run of an agentTurn job, kept in the run inbox like a channel's message: a run that another process
   * takes over delivers the answer its first runner stored (`sent`: it was delivered already), or goes on from the
   * stored prompt; only a run with nothing stored runs its turn from the start.
   */
  private async agentTurn(row: CronJobRow, prompt: string, run: CronRunInbox): Promise<{ text: string; sent: boolean }> {
    const stage = await run.begin({ prompt });
    if (stage.kind === "done") {
      this.logger.info("cron run taken over after its answer was delivered: nothing left to do", { job: row.id, run: run.ref.messageId });
      return { text: stage.text, sent: true };
    }
    if (stage.kind === "answered") {
      this.logger.info("cron run taken over after its answer was stored: delivering it", { job: row.id, run: run.ref.messageId });
      return { text: stage.text, sent: false };
    }
    let text: string | null = null;
    let rerunnable: TurnInput["rerunnable"] = { answering: run.ref };
    if (stage.kind === "started") {
      const tail = await this.o.sessions.messages(row.session_id, CRON_RUN_TAIL_MESSAGES);
      const started = startedRun(tail, stage.startedSeq, prompt);
      text = started.answer;
      rerunnable = resumeOf(started);
      this.logger.info(`cron run taken over after its prompt was stored: ${text === null ? "its turn goes on from the session" : "delivering its stored answer"}`, {
        job: row.id,
        run: run.ref.messageId,
      });
    }
    text ??= await this.turn(row, prompt, rerunnable);
    const answer = text.trim() === "" ? "(no answer)" : text;
    await run.answered(answer);
    return { text: answer, sent: false };
  }

  /** The job's message as a turn of its session, answered by the session's own agent (a session is one agent's conversation). */
  private async turn(row: CronJobRow, message: string, rerunnable?: TurnInput["rerunnable"]): Promise<string> {
    const agent = (await this.o.sessions.get(row.session_id))?.agent;
    const result = await this.o.runTurn({
      sessionId: row.session_id,
      ...(agent ? { agent } : {}),
      text: message,
      channel: row.channel,
      userId: row.owner,
      metadata: { chat_id: row.chat_id, thread_id: row.thread_id, cron_job: row.id },
      ...(rerunnable ? { rerunnable } : {}),
    });
    return result.text.trim() === "" ? "(no answer)" : result.text;
  }

  private async keep(row: CronJobRow, slot: number | null, ok: boolean, detail: string): Promise<void> {
    try {
      await this.o.jobs.recordRun(
        { job_id: row.id, at: this.clock.dateNow(), slot, ok, detail: detail.slice(0, CRON_TOOL_RUN_DETAIL_CHARS) },
        CRON_TOOL_RUNS_KEPT,
      );
    } catch (error) {
      this.logger.error("cron run not recorded", { job: row.id, error: errorMessage(error) });
    }
  }
}
