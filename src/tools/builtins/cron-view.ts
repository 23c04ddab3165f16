import type { CronJobRow, CronStateStore } from "../../storage/types.ts";
import type { CronPayload, StoredSchedule } from "./cron-args.ts";
import { readJob } from "./cron-plan.ts";
import { cronStateKey } from "./cron-store.ts";

/** A job as the tool, `prx cron list` and the console show it. */
export interface CronJobView {
  id: string;
  name: string | null;
  session_id: string;
  channel: string;
  chat_id: string | null;
  schedule: StoredSchedule;
  payload: CronPayload;
  created_at: string;
  /** ISO time of the next run; null when it will not run again. */
  next_run: string | null;
  /** ISO time of the last slot fired, or null. */
  last_run: string | null;
  last_error: string | null;
  run_requested: boolean;
}

/** Each job with its next and last run from the cron state store. */
export async function viewJobs(rows: readonly CronJobRow[], state: CronStateStore): Promise<CronJobView[]> {
  const out: CronJobView[] = [];
  for (const row of rows) {
    const job = readJob(row);
    const stored = await state.get(cronStateKey(row.id));
    const lastSlot = stored && stored.fires > 0 ? stored.last_slot : null;
    out.push({
      id: row.id,
      name: row.name,
      session_id: row.session_id,
      channel: row.channel,
      chat_id: row.chat_id,
      schedule: job.schedule,
      payload: job.payload,
      created_at: new Date(row.created_at).toISOString(),
      next_run: job.plan.nextAfter(Math.max(stored?.last_slot ?? row.created_at, row.created_at))?.toISOString() ?? null,
      last_run: lastSlot === null ? null : new Date(lastSlot).toISOString(),
      last_error: stored?.last_error ?? null,
      run_requested: row.run_requested_at !== null,
    });
  }
  return out;
}
