import type { SQL } from "bun";
import type { CronJobRow, CronJobRunRow, CronJobStore, StoreWatch } from "../types.ts";
import { pg } from "./connect.ts";
import { pgChannel } from "./notify.ts";

/**
 * The cron tool's jobs and their last runs, shared by replicas: any replica lists, runs and removes them. Every job
 * added, removed or asked to run is told on the schema's NOTIFY channel, so processes wait for a notice instead of
 * reading the jobs on a timer (watch).
 */
export class PgCronJobStore implements CronJobStore {
  private readonly channel: string;

  constructor(
    private readonly sql: SQL,
    schema: string,
  ) {
    this.channel = pgChannel("cron_jobs", schema);
  }

  async watch(changed: () => void): Promise<StoreWatch> {
    const subscription = await pg("cron jobs listen", () => this.sql.listen(this.channel, () => changed(), changed));
    return { close: () => subscription.unlisten() };
  }

  /** After a committed write: tell the processes watching. */
  private async notify(): Promise<void> {
    await this.sql.unsafe("SELECT pg_notify($1, '')", [this.channel]);
  }

  add(row: CronJobRow): Promise<void> {
    return pg("cron job add", async () => {
      await this.sql.unsafe(
        "INSERT INTO cron_jobs (id, name, session_id, channel, chat_id, thread_id, owner, schedule, payload, created_at, run_requested_at) " +
          "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        [row.id, row.name, row.session_id, row.channel, row.chat_id, row.thread_id, row.owner, row.schedule, row.payload, row.created_at, row.run_requested_at],
      );
      await this.notify();
    });
  }

  get(id: string): Promise<CronJobRow | null> {
    return pg("cron job read", async () => ((await this.sql.unsafe("SELECT * FROM cron_jobs WHERE id = $1", [id]))[0] as CronJobRow) ?? null);
  }

  list(sessionId?: string): Promise<CronJobRow[]> {
    return pg("cron job list", async () =>
      (sessionId === undefined
        ? await this.sql.unsafe("SELECT * FROM cron_jobs ORDER BY created_at, id")
        : await this.sql.unsafe("SELECT * FROM cron_jobs WHERE session_id = $1 ORDER BY created_at, id", [sessionId])) as CronJobRow[],
    );
  }

  count(sessionId?: string): Promise<number> {
    return pg("cron job count", async () => {
      const rows =
        sessionId === undefined
          ? await this.sql.unsafe("SELECT COUNT(*)::int AS n FROM cron_jobs")
          : await this.sql.unsafe("SELECT COUNT(*)::int AS n FROM cron_jobs WHERE session_id = $1", [sessionId]);
      return (rows[0] as { n: number }).n;
    });
  }

  remove(id: string): Promise<boolean> {
    return pg("cron job remove", async () => {
      const removed = await this.sql.unsafe("DELETE FROM cron_jobs WHERE id = $1 RETURNING id", [id]);
      await this.sql.unsafe("DELETE FROM cron_job_runs WHERE job_id = $1", [id]);
      if (removed.length === 1) await this.notify();
      return removed.length === 1;
    });
  }

  requestRun(id: string, at: number): Promise<boolean> {
    return pg("cron job run request", async () => {
      const asked = (await this.sql.unsafe("UPDATE cron_jobs SET run_requested_at = $1 WHERE id = $2 RETURNING id", [at, id])).length === 1;
      if (asked) await this.notify();
      return asked;
    });
  }

  takeRun(id: string, at: number): Promise<boolean> {
    return pg("cron job run take", async () =>
      (await this.sql.unsafe("UPDATE cron_jobs SET run_requested_at = NULL WHERE id = $1 AND run_requested_at = $2 RETURNING id", [id, at]))
        .length === 1,
    );
  }

  recordRun(run: CronJobRunRow, keep: number): Promise<void> {
    return pg("cron job run record", async () => {
      await this.sql.unsafe("INSERT INTO cron_job_runs (job_id, at, slot, ok, detail) VALUES ($1, $2, $3, $4, $5)", [
        run.job_id, run.at, run.slot, run.ok, run.detail,
      ]);
      await this.sql.unsafe(
        "DELETE FROM cron_job_runs WHERE job_id = $1 AND seq NOT IN (SELECT seq FROM cron_job_runs WHERE job_id = $1 ORDER BY seq DESC LIMIT $2)",
        [run.job_id, keep],
      );
    });
  }

  runs(jobId: string, limit: number): Promise<CronJobRunRow[]> {
    return pg("cron job runs", async () =>
      (await this.sql.unsafe("SELECT job_id, at, slot, ok, detail FROM cron_job_runs WHERE job_id = $1 ORDER BY seq DESC LIMIT $2", [
        jobId, limit,
      ])) as CronJobRunRow[],
    );
  }
}
