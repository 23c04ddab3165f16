import type { ToolSpec } from "../providers/types.ts";
import type { ToolResult } from "./result-schema.ts";

export type { ToolResult };

export interface ToolContext {
  sessionId: string;
  workspace: string;
  signal: AbortSignal;
  /** Deliver an intermediate message to the user during the current turn (remote actionCallback). */
  sendMessage?: (text: string) => void;
  /** The user's message that led to this call (after inbound middleware), and who sent it when the caller named them. */
  userMessage?: { text: string; userId?: string | null };
}

/** What a tool can do to the world ([autonomy] decides from it whether a call runs, waits for approval, or is refused). */
export type ToolRiskClass = "read" | "write" | "execute" | "network" | "message";

export interface Tool {
  readonly spec: ToolSpec;
  /** Declared by plugin and MCP tools; built-ins are classed by name (src/agent/approvals/risk.ts). */
  readonly risk?: ToolRiskClass;
  /**
   * Why every call would be refused under the configuration the tool was built with (shell off, an empty
   * allowlist); absent when it can run. The model is not offered such a tool; a call to it still gets the refusal.
   */
  readonly unavailable?: string;
  /** `args` is the parsed JSON object the model sent. Throwing is allowed; the registry turns it into an error result. */
  execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
}

/**
 * A set of tools whose membership can change over time (plugin generations). The registry asks at
 * call time, so a source must never be cached by consumers as a fixed list.
 */
export interface ToolSource {
  readonly id: string;
  list(): ToolSpec[];
  get(name: string): Tool | undefined;
}
