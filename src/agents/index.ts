export { AGENT_MODEL_PREFIX, MAIN_AGENT, type BindingTarget, type ResolvedAgent } from "./types.ts";
export { agentOf, resolveAgents } from "./resolve.ts";
export { bindAgent } from "./bindings.ts";
export { agentRequest } from "./request.ts";
export { agentMayUse, matchesTool, toolsForAgent } from "./tool-filter.ts";
export { keyAgent, ownKey, ScopedMemory } from "./memory-scope.ts";
