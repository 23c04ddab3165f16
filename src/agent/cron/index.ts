export { CronJobRunner } from "./runner.ts";
export type { CronJobRunnerOptions } from "./types.ts";
