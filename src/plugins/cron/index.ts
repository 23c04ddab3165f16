export { CRON_MAX_EXPRESSION_LENGTH, CRON_MAX_SLOTS, CRON_SEARCH_YEARS, CronSchedule, parseCron } from "../../core/cron/index.ts";
export type { CronScheduleOptions, SlotPlan } from "../../core/cron/index.ts";
export { AtPlan, EveryPlan } from "../../core/cron/index.ts";
export { CRON_MAX_JOBS, CRON_RUN_TIMEOUT_MS, CronScheduler } from "./scheduler.ts";
export { CRON_PUBLISH_OUTPUT_MAX_CHARS, cronResultPayload } from "./result.ts";
export type { CronSchedulerOptions } from "./scheduler.ts";
export type { CronTimers, CronJob, CronJobStatus, CronRunRecord } from "./types.ts";
