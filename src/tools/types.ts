import type { ToolSpec } from "../providers/types.ts";
import type { ToolResult } from "./result-schema.ts";
import type { MemoryBackend } from "../memory/types.ts";

export type { ToolResult };

export interface ToolContext {
  sessionId: string;
  workspace: string;
  signal: AbortSignal;
  /** Where the turn's message came from (the channel and its chat): where a job the turn schedules delivers to. */
  origin?: { channel: string; chatId?: string; threadId?: string; userId?: string };
  /** Deliver an intermediate message to the user during the current turn (remote actionCallback). */
  sendMessage?: (text: string) => void;
  /** Variables the shell tool adds to its child's environment: the active skill's `[skills.entries.<name>] env`. */
  env?: Readonly<Record<string, string>>;
  /**
   * Run a helper turn in a child session for the turn making the call (delegate): its approvals go where the calling
   * turn's go. Absent where no agent host runs the turn.
   */
  runHelperTurn?: (request: HelperTurnRequest) => Promise<HelperTurnOutcome>;
  /** Whether the turn's sender is the owner (TurnInput.fromOwner); absent: the owner. */
  fromOwner?: () => boolean | Promise<boolean>;
  /** The memory of the agent the turn runs as (an agent with its own memory scope); absent: the host's memory. */
  memory?: MemoryBackend;
  /** The user's message that led to this call (after inbound middleware), and who sent it when the caller named them. */
  userMessage?: { text: string; userId?: string | null };
}

/** A helper turn asked for by delegate: the child session is linked to the caller's before it runs. */
export interface HelperTurnRequest {
  /** The child session (new). */
  sessionId: string;
  /** How deep the child is (a child of a session nobody delegated to: 1). */
  depth: number;
  task: string;
  systemPrompt: string | undefined;
  /** Only these tools are offered and callable (undefined: the calling turn's). */
  tools: readonly string[] | undefined;
  maxIterations: number;
  maxTokens: number;
  /** Ends the helper turn: the caller's turn ending, or the time budget. */
  signal: AbortSignal;
}

export interface HelperTurnOutcome {
  text: string;
  /** Model calls made. */
  iterations: number;
  /** Tokens of those calls (prompt + completion). */
  tokens: number;
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
