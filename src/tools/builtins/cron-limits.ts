/** Bounds of the cron tool (jobs the assistant schedules), each tested at the limit and one past. */

/** Jobs one session may have at once. */
export const CRON_TOOL_MAX_JOBS_PER_SESSION = 32;
/** Jobs of the whole workspace (one scheduler takes at most CRON_MAX_JOBS). */
export const CRON_TOOL_MAX_JOBS = 1024;
/** Characters of a payload's text (systemEvent) or message (agentTurn). */
export const CRON_TOOL_MAX_TEXT_CHARS = 4000;
/** Characters of a job's name. */
export const CRON_TOOL_MAX_NAME_CHARS = 100;
/** Shortest interval of an `every` schedule. */
export const CRON_TOOL_MIN_EVERY_MS = 60_000;
/** Longest interval of an `every` schedule (a year). */
export const CRON_TOOL_MAX_EVERY_MS = 366 * 86_400_000;
/** Characters of an ISO-8601 instant or a time zone name. */
export const CRON_TOOL_MAX_TIME_CHARS = 64;
/** How far ahead an `at` job may be (ten years). */
export const CRON_TOOL_MAX_AHEAD_MS = 3653 * 86_400_000;
/** A slot missed while no process ran fires once on start when found due within this; later it is recorded as missed. */
export const CRON_TOOL_MISSED_GRACE_MS = 15 * 60_000;
/** How often a process reads the jobs (added, removed or asked to run by another process or replica). */
export const CRON_TOOL_POLL_MS = 1000;
/** Runs kept per job (the `runs` action, `prx cron runs`). */
export const CRON_TOOL_RUNS_KEPT = 20;
/** Characters of a run's detail kept (what was delivered, or the error). */
export const CRON_TOOL_RUN_DETAIL_CHARS = 2000;
/** Time a job's run (an agent turn and its delivery) may take. */
export const CRON_TOOL_RUN_TIMEOUT_MS = 300_000;
