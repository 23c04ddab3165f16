import type { ToolRiskClass } from "../../tools/types.ts";

/** What a tool can do to the world, which decides whether a call runs on its own, waits for the owner, or is refused. */
export type RiskClass = ToolRiskClass;

/** Unknown: a plugin, MCP or skill tool that declares no class (asked for, like any class but read). */
export type ToolRisk = RiskClass | "unknown";

export type Permission = "allow" | "ask" | "deny";

/** The owner's answer to one approval. */
export type ApprovalDecision = "allow" | "allow_session" | "deny";

/** How a call ended up allowed or not: the owner's answer, a timeout, or no need to ask. */
export type GateDecision = ApprovalDecision | "timeout";

/** A tool call waiting for the owner, as an entry point shows it. */
export interface PendingApproval {
  id: string;
  /** Four digits, for an answer typed in a chat ("yes 4821"). */
  code: string;
  tool: string;
  risk: ToolRisk;
  /** The call's arguments, bounded (APPROVAL_PREVIEW_MAX_CHARS). */
  preview: string;
  sessionId: string;
  channel: string;
  /** Epoch ms after which no answer counts (a denial the model is told about). */
  expiresAt: number;
}

/** Who answered, and how. */
export interface ApprovalAnswer {
  decision: GateDecision;
  /** api, console, chat, owner:<sender>, timeout */
  by: string;
  reason: string | null;
}

/**
 * How a turn's approvals reach the owner. `ask`: the call waits (stored, so `GET /api/approvals` on any replica lists
 * it and any of them can answer); `notify` tells the entry point's user (an inline prompt, a message in the chat), and
 * may answer itself through the broker. `refuse`: no one can be asked (`prx agent -m`): the call is denied at once.
 * `yes`: the caller approved every call beforehand (`prx agent -m --yes`).
 */
export type ApprovalRoute =
  | {
      kind: "ask";
      /** The chat the question is asked in (channels): an owner's "yes 4821" there is matched to it. */
      chatKey?: string;
      notify?(pending: PendingApproval): void | Promise<void>;
      /** The approval was decided or ran out (the entry point closes its prompt). */
      settled?(pending: PendingApproval, answer: ApprovalAnswer): void;
    }
  | {
      kind: "refuse";
      /** What to do instead, appended to the refusal the model gets. */
      hint?: string;
      /** The refusal, for the user as well (the CLI prints it on stderr). */
      told?(message: string): void;
    }
  | { kind: "yes" };
