import type { Database } from "bun:sqlite";
import type { CronClaim, CronStateRow, CronStateStore } from "../types.ts";
import { migrateSqlite } from "./schema.ts";

const COLUMNS = "job_id, schedule, last_slot, removed_at, fires, lease_owner, lease_until, fence, last_error";

/**
 * Last-fire records and run leases in the workspace database. Claiming a slot is one conditional UPDATE, so of
 * several processes sharing the workspace exactly one wins each slot; the fence grows with every claim and takeover.
 */
export class SqliteCronStateStore implements CronStateStore {
  constructor(private readonly db: Database) {
    migrateSqlite(db);
  }

  get(jobId: string): CronStateRow | null {
    return this.db.query<CronStateRow, [string]>(`SELECT ${COLUMNS} FROM cron_state WHERE job_id = ?`).get(jobId);
  }

  ensure(jobId: string, schedule: string, baseline: number): CronStateRow {
    this.db
      .query("INSERT INTO cron_state (job_id, schedule, last_slot) VALUES (?, ?, ?) ON CONFLICT(job_id) DO NOTHING")
      .run(jobId, schedule, baseline);
    return this.get(jobId)!;
  }

  rebaseline(jobId: string, schedule: string, baseline: number): CronStateRow {
    this.db
      .query("UPDATE cron_state SET schedule = ?, last_slot = MAX(last_slot, ?), removed_at = NULL WHERE job_id = ?")
      .run(schedule, baseline, jobId);
    return this.get(jobId)!;
  }

  markRemoved(jobId: string, at: number): void {
    this.db.query("UPDATE cron_state SET removed_at = ? WHERE job_id = ?").run(at, jobId);
  }

  forget(jobId: string): void {
    this.db.query("DELETE FROM cron_state WHERE job_id = ?").run(jobId);
  }

  claim(jobId: string, slot: number, at: number, owner: string, leaseUntil: number): CronClaim | null {
    const row = this.db
      .query<{ fence: number }, [number, number, string, number, string, number]>(
        "UPDATE cron_state SET last_slot = ?, last_fired_at = ?, removed_at = NULL, fires = fires + 1, " +
          "lease_owner = ?, lease_until = ?, fence = fence + 1 WHERE job_id = ? AND last_slot < ? RETURNING fence",
      )
      .get(slot, at, owner, leaseUntil, jobId, slot);
    return row ? { fence: row.fence } : null;
  }

  takeOver(jobId: string, slot: number, at: number, owner: string, leaseUntil: number): CronClaim | null {
    const row = this.db
      .query<{ fence: number }, [string, number, string, number, number]>(
        "UPDATE cron_state SET lease_owner = ?, lease_until = ?, fence = fence + 1, fires = fires + 1 " +
          "WHERE job_id = ? AND last_slot = ? AND lease_owner IS NOT NULL AND lease_until < ? RETURNING fence",
      )
      .get(owner, leaseUntil, jobId, slot, at);
    return row ? { fence: row.fence } : null;
  }

  renew(jobId: string, fence: number, leaseUntil: number): boolean {
    return (
      this.db
        .query("UPDATE cron_state SET lease_until = ? WHERE job_id = ? AND fence = ? AND lease_owner IS NOT NULL")
        .run(leaseUntil, jobId, fence).changes === 1
    );
  }

  finish(jobId: string, fence: number, at: number, ok: boolean, error: string | null): boolean {
    return (
      this.db
        .query(
          "UPDATE cron_state SET last_finished_at = ?, last_ok = ?, last_error = ?, lease_owner = NULL, lease_until = NULL " +
            "WHERE job_id = ? AND fence = ?",
        )
        .run(at, ok ? 1 : 0, error, jobId, fence).changes === 1
    );
  }
}
