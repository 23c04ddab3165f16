/**
 * Supervision of child processes: when to restart one that exited, how long to back off between attempts, and how
 * a child dies with its parent. Channels, MCP servers and remote plugins use it, each with its own limits.
 */
export { Backoff, exponentialDelay } from "./backoff.ts";
export { waitAtMost } from "./grace.ts";
export { dieWithParent, watchParent } from "./parent-death.ts";
export { RestartPolicy } from "./restart-policy.ts";
export { sleep } from "./sleep.ts";
export type {
  BackoffLimits,
  BackoffOptions,
  ParentDeathMechanism,
  RestartDecision,
  RestartLimits,
  WatchParentOptions,
} from "./types.ts";
export { cgroupSupport, type CgroupSupport } from "./cgroup.ts";
export { becomeSubreaper, PROCESS_OWNERS_ENV, ProcessTree } from "./process-tree.ts";
