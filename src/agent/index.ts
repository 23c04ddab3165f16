export {
  openAgentHost,
  type AgentHost,
  type ExtendBase,
  type ExtensionsStatus,
  type HostExtensions,
  type OpenAgentHostOptions,
} from "./host.ts";
export { executeTurn } from "./turn.ts";
export { planTurn, type TurnPlan, type TurnRequest } from "./plan.ts";
export { SqliteSessionStore, validateSessionId, SESSION_ID_MAX_BYTES, SESSION_ID_PATTERN } from "./sessions.ts";
export { SessionQueue, SESSION_QUEUE_MAX } from "./session-queue.ts";
export * from "./types.ts";
export * from "./session-export.ts";
export { deleteSessionData, type SessionDeletion } from "./session-delete.ts";
export { compactSessionNow, type SessionCompaction } from "./session-compact.ts";
export { SUMMARY_INSTRUCTIONS } from "./compaction.ts";
export * from "./usage-report.ts";
