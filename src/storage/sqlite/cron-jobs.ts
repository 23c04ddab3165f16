import type { Database } from "bun:sqlite";
import type { CronJobRow, CronJobRunRow, CronJobStore } from "../types.ts";
import { migrateSqlite } from "./schema.ts";

type RunRow = Omit<CronJobRunRow, "ok"> & { ok: number };

/** The cron tool's jobs and their last runs, in the workspace file: every process of the workspace sees them. */
export class SqliteCronJobStore implements CronJobStore {
  constructor(private readonly db: Database) {
    migrateSqlite(db);
  }

  add(row: CronJobRow): void {
    this.db
      .query(
        "INSERT INTO cron_jobs (id, name, session_id, channel, chat_id, thread_id, owner, schedule, payload, created_at, run_requested_at) " +
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      )
      .run(row.id, row.name, row.session_id, row.channel, row.chat_id, row.thread_id, row.owner, row.schedule, row.payload, row.created_at, row.run_requested_at);
  }

  get(id: string): CronJobRow | null {
    return this.db.query<CronJobRow, [string]>("SELECT * FROM cron_jobs WHERE id = ?").get(id);
  }

  list(sessionId?: string): CronJobRow[] {
    return sessionId === undefined
      ? this.db.query<CronJobRow, []>("SELECT * FROM cron_jobs ORDER BY created_at, id").all()
      : this.db.query<CronJobRow, [string]>("SELECT * FROM cron_jobs WHERE session_id = ? ORDER BY created_at, id").all(sessionId);
  }

  count(sessionId?: string): number {
    const row =
      sessionId === undefined
        ? this.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM cron_jobs").get()
        : this.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM cron_jobs WHERE session_id = ?").get(sessionId);
    return row?.n ?? 0;
  }

  remove(id: string): boolean {
    const removed = this.db.query("DELETE FROM cron_jobs WHERE id = ?").run(id).changes === 1;
    this.db.query("DELETE FROM cron_job_runs WHERE job_id = ?").run(id);
    return removed;
  }

  requestRun(id: string, at: number): boolean {
    return this.db.query("UPDATE cron_jobs SET run_requested_at = ? WHERE id = ?").run(at, id).changes === 1;
  }

  takeRun(id: string, at: number): boolean {
    return this.db.query("UPDATE cron_jobs SET run_requested_at = NULL WHERE id = ? AND run_requested_at = ?").run(id, at).changes === 1;
  }

  recordRun(run: CronJobRunRow, keep: number): void {
    this.db.transaction(() => {
      this.db
        .query("INSERT INTO cron_job_runs (job_id, at, slot, ok, detail) VALUES (?, ?, ?, ?, ?)")
        .run(run.job_id, run.at, run.slot, run.ok ? 1 : 0, run.detail);
      this.db
        .query(
          "DELETE FROM cron_job_runs WHERE job_id = ? AND seq NOT IN (SELECT seq FROM cron_job_runs WHERE job_id = ? ORDER BY seq DESC LIMIT ?)",
        )
        .run(run.job_id, run.job_id, keep);
    }).immediate();
  }

  runs(jobId: string, limit: number): CronJobRunRow[] {
    return this.db
      .query<RunRow, [string, number]>("SELECT job_id, at, slot, ok, detail FROM cron_job_runs WHERE job_id = ? ORDER BY seq DESC LIMIT ?")
      .all(jobId, limit)
      .map((r) => ({ ...r, ok: r.ok === 1 }));
  }
}
