/** The per-plugin budget of calls into the host (remote plugins' runtime.*, WASM guests' host imports). */
export { HostCallBudget, DEFAULT_HOST_CALL_LIMITS } from "./budget.ts";
export { RefusalPacer, type Schedule } from "./pacer.ts";
export { RefusalLog } from "./refusal-log.ts";
export * from "./limits.ts";
export type { HostCallBudgetStatus, HostCallLimits, HostCallRefusal, HostCallRefusalReason } from "./types.ts";
