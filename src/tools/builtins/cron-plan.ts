import { AtPlan, CronSchedule, EveryPlan, type SlotPlan } from "../../core/cron/index.ts";
import { PrxError } from "../../core/errors.ts";
import type { CronJobRow } from "../../storage/types.ts";
import { CronPayloadArg, StoredSchedule, type CronPayload, type CronScheduleArg } from "./cron-args.ts";
import { CRON_TOOL_MAX_AHEAD_MS } from "./cron-limits.ts";

/** An ISO-8601 instant ends with Z or an offset; without one it is read as UTC. */
const ZONED = /(Z|[+-]\d{2}(:?\d{2})?)$/i;

/** The schedule the tool was given, checked and normalized for storage; throws BAD_REQUEST saying what to fix. */
export function normalizeSchedule(schedule: CronScheduleArg, now: number): StoredSchedule {
  if (schedule.kind === "at") {
    const text = schedule.at.trim();
    const at = Date.parse(ZONED.test(text) || !text.includes("T") ? text : `${text}Z`);
    if (!Number.isFinite(at)) throw new PrxError("BAD_REQUEST", `"${schedule.at}" is not an ISO-8601 instant; give e.g. "2026-12-05T09:00:00Z"`);
    if (at <= now) throw new PrxError("BAD_REQUEST", `${new Date(at).toISOString()} is not in the future (now is ${new Date(now).toISOString()})`);
    if (at - now > CRON_TOOL_MAX_AHEAD_MS) throw new PrxError("BAD_REQUEST", `${new Date(at).toISOString()} is more than ten years ahead`);
    return { kind: "at", at: new Date(at).toISOString() };
  }
  if (schedule.kind === "every") {
    const every = schedule.every_ms ?? schedule.everyMs;
    if (every === undefined) throw new PrxError("BAD_REQUEST", "an every schedule needs every_ms (milliseconds between runs)");
    if (schedule.every_ms !== undefined && schedule.everyMs !== undefined && schedule.every_ms !== schedule.everyMs) {
      throw new PrxError("BAD_REQUEST", "every_ms and everyMs differ; give one of them");
    }
    return { kind: "every", every_ms: every, anchor_ms: schedule.anchor_ms ?? now };
  }
  const stored: StoredSchedule = { kind: "cron", expr: schedule.expr, ...(schedule.tz === undefined ? {} : { tz: schedule.tz }) };
  if (planOf(stored).nextAfter(now) === null) throw new PrxError("BAD_REQUEST", `cron expression "${schedule.expr}" never fires again`);
  return stored;
}

/** When a stored schedule is due. */
export function planOf(schedule: StoredSchedule): SlotPlan {
  if (schedule.kind === "at") return new AtPlan(Date.parse(schedule.at));
  if (schedule.kind === "every") return new EveryPlan(schedule.every_ms, schedule.anchor_ms);
  const cron = new CronSchedule(schedule.expr, schedule.tz === undefined ? {} : { tz: schedule.tz });
  const source = `cron:${schedule.expr}${schedule.tz === undefined ? "" : ` ${schedule.tz}`}`;
  return {
    source,
    nextAfter: (date) => cron.nextAfter(date),
    prevAtOrBefore: (date) => cron.prevAtOrBefore(date),
    slotsBetween: (a, b, limit) => cron.slotsBetween(a, b, limit),
  };
}

export interface StoredJob {
  row: CronJobRow;
  schedule: StoredSchedule;
  payload: CronPayload;
  plan: SlotPlan;
}

/** A stored job's schedule and payload as their schemas read them (a row another version wrote is refused here). */
export function readJob(row: CronJobRow): StoredJob {
  let schedule: StoredSchedule;
  let payload: CronPayload;
  try {
    schedule = StoredSchedule.parse(JSON.parse(row.schedule));
    payload = CronPayloadArg.parse(JSON.parse(row.payload));
  } catch (cause) {
    throw new PrxError("STORAGE", `cron job ${row.id} is stored in a shape this version does not read`, { cause, hint: `remove it: prx cron rm ${row.id}` });
  }
  return { row, schedule, payload, plan: planOf(schedule) };
}
