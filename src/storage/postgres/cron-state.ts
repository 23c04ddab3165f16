import type { SQL } from "bun";
import type { CronClaim, CronStateRow, CronStateStore } from "../types.ts";
import { pg } from "./connect.ts";

const COLUMNS = "job_id, schedule, last_slot, removed_at, fires, lease_owner, lease_until, fence, last_error";

/** Cron last-fire records and run leases in PostgreSQL: each claim is one conditional UPDATE, won by one replica. */
export class PgCronStateStore implements CronStateStore {
  constructor(private readonly sql: SQL) {}

  get(jobId: string): Promise<CronStateRow | null> {
    return pg("cron get", async () => ((await this.sql.unsafe(`SELECT ${COLUMNS} FROM cron_state WHERE job_id = $1`, [jobId]))[0] as CronStateRow) ?? null);
  }

  async ensure(jobId: string, schedule: string, baseline: number): Promise<CronStateRow> {
    await pg("cron ensure", () =>
      this.sql.unsafe("INSERT INTO cron_state (job_id, schedule, last_slot) VALUES ($1, $2, $3) ON CONFLICT (job_id) DO NOTHING", [
        jobId,
        schedule,
        baseline,
      ]),
    );
    return (await this.get(jobId))!;
  }

  async rebaseline(jobId: string, schedule: string, baseline: number): Promise<CronStateRow> {
    await pg("cron rebaseline", () =>
      this.sql.unsafe("UPDATE cron_state SET schedule = $1, last_slot = GREATEST(last_slot, $2), removed_at = NULL WHERE job_id = $3", [
        schedule,
        baseline,
        jobId,
      ]),
    );
    return (await this.get(jobId))!;
  }

  async markRemoved(jobId: string, at: number): Promise<void> {
    await pg("cron remove", () => this.sql.unsafe("UPDATE cron_state SET removed_at = $1 WHERE job_id = $2", [at, jobId]));
  }

  async forget(jobId: string): Promise<void> {
    await pg("cron forget", () => this.sql.unsafe("DELETE FROM cron_state WHERE job_id = $1", [jobId]));
  }

  claim(jobId: string, slot: number, at: number, owner: string, leaseUntil: number): Promise<CronClaim | null> {
    return pg("cron claim", async () => {
      const rows = await this.sql.unsafe(
        "UPDATE cron_state SET last_slot = $1, last_fired_at = $2, removed_at = NULL, fires = fires + 1, " +
          "lease_owner = $3, lease_until = $4, fence = fence + 1 WHERE job_id = $5 AND last_slot < $1 RETURNING fence",
        [slot, at, owner, leaseUntil, jobId],
      );
      return rows[0] ? { fence: rows[0].fence as number } : null;
    });
  }

  takeOver(jobId: string, slot: number, at: number, owner: string, leaseUntil: number): Promise<CronClaim | null> {
    return pg("cron takeover", async () => {
      const rows = await this.sql.unsafe(
        "UPDATE cron_state SET lease_owner = $1, lease_until = $2, fence = fence + 1, fires = fires + 1 " +
          "WHERE job_id = $3 AND last_slot = $4 AND lease_owner IS NOT NULL AND lease_until < $5 RETURNING fence",
        [owner, leaseUntil, jobId, slot, at],
      );
      return rows[0] ? { fence: rows[0].fence as number } : null;
    });
  }

  renew(jobId: string, fence: number, leaseUntil: number): Promise<boolean> {
    return pg("cron renew", async () =>
      (
        await this.sql.unsafe("UPDATE cron_state SET lease_until = $1 WHERE job_id = $2 AND fence = $3 AND lease_owner IS NOT NULL", [
          leaseUntil,
          jobId,
          fence,
        ])
      ).count === 1,
    );
  }

  finish(jobId: string, fence: number, at: number, ok: boolean, error: string | null): Promise<boolean> {
    return pg("cron finish", async () =>
      (
        await this.sql.unsafe(
          "UPDATE cron_state SET last_finished_at = $1, last_ok = $2, last_error = $3, lease_owner = NULL, lease_until = NULL " +
            "WHERE job_id = $4 AND fence = $5",
          [at, ok, error, jobId, fence],
        )
      ).count === 1,
    );
  }
}
