import type { Database } from "bun:sqlite";
import { ensureSchema } from "../../core/database.ts";

/**
 * Last-fire records in the workspace database, outside any generation. `last_slot` is the epoch ms of the last slot
 * claimed (or the baseline a job started from); claiming is one conditional UPDATE, so of several processes sharing
 * the workspace exactly one wins each slot.
 */
const DDL = `
CREATE TABLE IF NOT EXISTS cron_state (
  job_id TEXT PRIMARY KEY,
  schedule TEXT NOT NULL,
  last_slot INTEGER NOT NULL,
  removed_at INTEGER,
  fires INTEGER NOT NULL DEFAULT 0,
  last_fired_at INTEGER,
  last_finished_at INTEGER,
  last_ok INTEGER,
  last_error TEXT
)`;

export interface CronStateRow {
  job_id: string;
  schedule: string;
  last_slot: number;
  removed_at: number | null;
  fires: number;
}

export class CronStateStore {
  constructor(private readonly db: Database) {
    ensureSchema(db, "cron_state", DDL);
  }

  get(jobId: string): CronStateRow | null {
    return this.db
      .query<CronStateRow, [string]>(
        "SELECT job_id, schedule, last_slot, removed_at, fires FROM cron_state WHERE job_id = ?",
      )
      .get(jobId);
  }

  /** Insert a fresh record (baseline = now) unless one exists; returns the record now stored. */
  ensure(jobId: string, schedule: string, baseline: number): CronStateRow {
    this.db
      .query("INSERT INTO cron_state (job_id, schedule, last_slot) VALUES (?, ?, ?) ON CONFLICT(job_id) DO NOTHING")
      .run(jobId, schedule, baseline);
    return this.get(jobId)!;
  }

  /** Start over from `baseline` (schedule changed, or the job was removed and is back): no catch-up. */
  rebaseline(jobId: string, schedule: string, baseline: number): CronStateRow {
    this.db
      .query("UPDATE cron_state SET schedule = ?, last_slot = MAX(last_slot, ?), removed_at = NULL WHERE job_id = ?")
      .run(schedule, baseline, jobId);
    return this.get(jobId)!;
  }

  markRemoved(jobId: string, at: number): void {
    this.db.query("UPDATE cron_state SET removed_at = ? WHERE job_id = ?").run(at, jobId);
  }

  /** Atomically claim `slot`: true for exactly one claimant while last_slot < slot. */
  claim(jobId: string, slot: number, at: number): boolean {
    const result = this.db
      .query(
        "UPDATE cron_state SET last_slot = ?, last_fired_at = ?, removed_at = NULL, fires = fires + 1 " +
          "WHERE job_id = ? AND last_slot < ?",
      )
      .run(slot, at, jobId, slot);
    return result.changes === 1;
  }

  finish(jobId: string, at: number, ok: boolean, error: string | null): void {
    this.db
      .query("UPDATE cron_state SET last_finished_at = ?, last_ok = ?, last_error = ? WHERE job_id = ?")
      .run(at, ok ? 1 : 0, error, jobId);
  }
}
