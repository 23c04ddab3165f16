export * from "./limits.ts";
export { HooksManager } from "./manager.ts";
export type { EditOptions, HooksManagerOptions } from "./manager.ts";
export { describeIssues, HookActionSchema, HooksFileSchema, normalizeEventName } from "./schema.ts";
export type { HookAction, HookActionInput, HooksFile, HooksFileInput } from "./schema.ts";
export { runHookAction } from "./runner.ts";
export type { HookRunContext } from "./runner.ts";
export type { HookDispatchResult, HookRunResult, HooksReloadResult, HooksSnapshot, HooksStatus } from "./types.ts";
