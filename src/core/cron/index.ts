export { CRON_MAX_EXPRESSION_LENGTH, CRON_MAX_SLOTS, CRON_SEARCH_YEARS, CronSchedule, parseCron } from "./schedule.ts";
export type { CronScheduleOptions } from "./schedule.ts";
export { AtPlan, EveryPlan } from "./plan.ts";
export type { SlotPlan } from "./plan.ts";
