import type { CronRunRecord } from "./types.ts";

/** Output published on the bus is cut to this many characters (the bus caps payloads at 64 KiB). */
export const CRON_PUBLISH_OUTPUT_MAX_CHARS = 16 * 1024;

/** The `prx.cron.<plugin>` payload: {job, slot, ok, output | error}, plus truncated / coalesced when they apply. */
export function cronResultPayload(record: CronRunRecord): Record<string, unknown> {
  const payload: Record<string, unknown> = { job: record.job, slot: record.slot, ok: record.ok };
  if (record.ok) {
    const output = record.output ?? "";
    const cut = output.length > CRON_PUBLISH_OUTPUT_MAX_CHARS;
    payload.output = cut ? output.slice(0, CRON_PUBLISH_OUTPUT_MAX_CHARS) : output;
    if (cut) payload.truncated = true;
  } else {
    payload.error = record.error;
  }
  if (record.coalesced > 1) payload.coalesced = record.coalesced;
  return payload;
}
