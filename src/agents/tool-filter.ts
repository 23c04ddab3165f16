import type { ToolSpec } from "../providers/types.ts";
import type { Tool, ToolContext, ToolResult } from "../tools/types.ts";
import { fail } from "../tools/result.ts";
import type { ResolvedAgent } from "./types.ts";

/** The registry as the approval gate sees it. */
export interface AgentTools {
  specs(): ToolSpec[];
  resolve(name: string): Tool | undefined;
  call(name: string, rawArguments: string, context: ToolContext): Promise<ToolResult>;
}

/** `name` against a tool name or a pattern with `*` (any run of characters). */
export function matchesTool(pattern: string, name: string): boolean {
  if (!pattern.includes("*")) return pattern === name;
  const parts = pattern.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join(".*")}$`).test(name);
}

/** Whether the agent may use the tool: not denied, and allowed when it has an allow list. */
export function agentMayUse(agent: Pick<ResolvedAgent, "toolsAllow" | "toolsDeny">, name: string): boolean {
  if (agent.toolsDeny.some((pattern) => matchesTool(pattern, name))) return false;
  return agent.toolsAllow === null || agent.toolsAllow.some((pattern) => matchesTool(pattern, name));
}

/**
 * The registry as one agent sees it: other tools are not offered, resolve to nothing (so the gate audits a call to
 * one as refused) and are refused without running.
 */
export function toolsForAgent(agent: ResolvedAgent, tools: AgentTools): AgentTools {
  if (agent.toolsAllow === null && agent.toolsDeny.length === 0) return tools;
  return {
    specs: () => tools.specs().filter((spec) => agentMayUse(agent, spec.name)),
    resolve: (name) => (agentMayUse(agent, name) ? tools.resolve(name) : undefined),
    call: (name, raw, context) =>
      agentMayUse(agent, name)
        ? tools.call(name, raw, context)
        : Promise.resolve(fail(`tool ${name} is not one agent ${agent.id} may use ([agents.${agent.id}] tools)`)),
  };
}
