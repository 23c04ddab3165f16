export { ApprovalBroker, pendingOf, type ApprovalRequest } from "./broker.ts";
export { ToolGate, type TurnParty, type TurnToolsView } from "./gate.ts";
export * from "./limits.ts";
export { globMatches, permissionFor } from "./policy.ts";
export { riskOf } from "./risk.ts";
export type * from "./types.ts";
