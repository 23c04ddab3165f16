import type { CronJobStore, CronStateStore } from "../../storage/types.ts";

/** The key of a cron tool job's slot claims and leases in the cron state store (apart from plugins' "<plugin>/<name>"). */
export function cronStateKey(jobId: string): string {
  return `@cron/${jobId}`;
}

/** Remove a job, its runs and its slot record; false when there was no such job. */
export async function removeCronJob(jobs: CronJobStore, state: CronStateStore, id: string): Promise<boolean> {
  const removed = await jobs.remove(id);
  await state.forget(cronStateKey(id));
  return removed;
}
