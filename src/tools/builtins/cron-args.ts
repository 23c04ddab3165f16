import { z } from "zod";
import { CRON_MAX_EXPRESSION_LENGTH } from "../../core/cron/index.ts";
import {
  CRON_TOOL_MAX_EVERY_MS,
  CRON_TOOL_MAX_NAME_CHARS,
  CRON_TOOL_MAX_TEXT_CHARS,
  CRON_TOOL_MAX_TIME_CHARS,
  CRON_TOOL_MIN_EVERY_MS,
} from "./cron-limits.ts";

/**
 * The cron tool's wire, in the shape OpenClaw's and PRX's cron tools use (so prompts written for them work):
 * `schedule` {kind: "at" | "every" | "cron"}, `payload` {kind: "systemEvent" | "agentTurn"}. The stored job keeps the
 * same shapes, normalized (an instant in UTC ISO form, an interval with its anchor).
 */

const Every = z
  .number()
  .int()
  .min(CRON_TOOL_MIN_EVERY_MS)
  .max(CRON_TOOL_MAX_EVERY_MS)
  .describe(`interval in milliseconds (at least ${CRON_TOOL_MIN_EVERY_MS})`);

export const CronScheduleArg = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("at"),
    at: z.string().min(1).max(CRON_TOOL_MAX_TIME_CHARS).describe('ISO-8601 instant, e.g. "2026-12-05T09:00:00Z" (no offset: UTC)'),
  }),
  z.strictObject({
    kind: z.literal("every"),
    every_ms: Every.optional(),
    everyMs: Every.optional().describe("same as every_ms"),
    anchor_ms: z.number().int().min(0).optional().describe("epoch ms the intervals count from (default: now)"),
  }),
  z.strictObject({
    kind: z.literal("cron"),
    expr: z.string().min(1).max(CRON_MAX_EXPRESSION_LENGTH).describe('cron expression, e.g. "0 9 * * 1-5" (5 fields, or 6 with seconds first)'),
    tz: z.string().min(1).max(CRON_TOOL_MAX_TIME_CHARS).optional().describe('IANA time zone, e.g. "Europe/Berlin" (default: the host\'s)'),
  }),
]);

export const CronPayloadArg = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("systemEvent"),
    text: z.string().min(1).max(CRON_TOOL_MAX_TEXT_CHARS).describe("the message delivered into this conversation at that time, e.g. a reminder"),
  }),
  z.strictObject({
    kind: z.literal("agentTurn"),
    message: z.string().min(1).max(CRON_TOOL_MAX_TEXT_CHARS).describe("what the assistant is asked at that time; its answer is delivered here"),
  }),
]);

const JobName = z.string().min(1).max(CRON_TOOL_MAX_NAME_CHARS).describe("short name of the job");
const JobId = z.string().min(1).max(64).describe("the job's id (from add or list)");

export const CronJobArg = z.strictObject({ name: JobName.optional(), schedule: CronScheduleArg, payload: CronPayloadArg });

export const CronArgs = z.strictObject({
  action: z.enum(["add", "list", "remove", "run", "runs"]).describe("add a job, list this conversation's jobs, remove one, run one now, or show its last runs"),
  job: CronJobArg.optional().describe("add: the job (or give name, schedule and payload beside action)"),
  // the same fields beside action, checked against CronJobArg by the tool (not spelled out twice to the model)
  name: JobName.optional(),
  schedule: z.record(z.string(), z.unknown()).optional().describe("add: same as job.schedule"),
  payload: z.record(z.string(), z.unknown()).optional().describe("add: same as job.payload"),
  jobId: JobId.optional().describe("remove, run, runs: the job's id"),
  id: JobId.optional().describe("same as jobId"),
});

/** A schedule as stored: `at` in UTC ISO form, `every` with its anchor. */
export const StoredSchedule = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("at"), at: z.string() }),
  z.strictObject({ kind: z.literal("every"), every_ms: z.number().int().positive(), anchor_ms: z.number().int() }),
  z.strictObject({ kind: z.literal("cron"), expr: z.string(), tz: z.string().optional() }),
]);

export type CronArgs = z.output<typeof CronArgs>;
export type CronScheduleArg = z.output<typeof CronScheduleArg>;
export type CronPayload = z.output<typeof CronPayloadArg>;
export type StoredSchedule = z.output<typeof StoredSchedule>;
