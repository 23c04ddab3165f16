import type { AutonomyConfig } from "../../config/schema.ts";
import { errorMessage } from "../../core/errors.ts";
import { sha256Hex } from "../../core/ids.ts";
import { createLogger, type Logger } from "../../core/logger.ts";
import type { AuditStore } from "../../storage/types.ts";
import { fail } from "../../tools/result.ts";
import type { Tool, ToolContext, ToolResult } from "../../tools/types.ts";
import type { ToolSpec } from "../../providers/types.ts";
import type { ApprovalBroker } from "./broker.ts";
import { APPROVAL_PREVIEW_MAX_CHARS } from "./limits.ts";
import { permissionFor } from "./policy.ts";
import { riskOf } from "./risk.ts";
import type { ApprovalAnswer, ApprovalRoute, GateDecision, ToolRisk } from "./types.ts";

/** The tools a gate stands in front of (the host's registry). */
export interface GatedTools {
  specs(): ToolSpec[];
  resolve(name: string): Tool | undefined;
  call(name: string, rawArguments: string, context: ToolContext): Promise<ToolResult>;
}

export interface ToolGateOptions {
  autonomy: AutonomyConfig;
  tools: GatedTools;
  broker: ApprovalBroker;
  audit: () => AuditStore;
  now?: () => number;
  logger?: Logger;
}

/** Who a turn's calls are made for. */
export interface TurnParty {
  sessionId: string;
  channel: string;
  /** Read only when a call is asked about or recorded (the CLI looks its OS user up on first read). */
  sender(): string | null;
  /** The agent whose turn makes the calls (default "main"). */
  agent?: string;
}

/** What the turn loop calls: the registry's interface, with the gate in front. */
export interface TurnToolsView {
  specs(): ToolSpec[];
  call(name: string, rawArguments: string, context: ToolContext): Promise<ToolResult>;
}

/**
 * Every tool call of every turn passes here: `[autonomy]` says whether it runs, waits for the owner (through the
 * turn's route) or is refused, and the call lands in the audit log with its decision, who made it, its outcome and
 * its duration.
 */
export class ToolGate {
  private readonly now: () => number;
  private readonly logger: Logger;

  constructor(private readonly o: ToolGateOptions) {
    this.now = o.now ?? Date.now;
    this.logger = o.logger ?? createLogger("audit");
  }

  /** The tools as one turn sees them: calls are gated for this party, through this route. */
  forTurn(party: TurnParty, route: ApprovalRoute): TurnToolsView {
    return {
      specs: () => this.o.tools.specs(),
      call: (name, rawArguments, context) => this.call(party, route, name, rawArguments, context),
    };
  }

  private async call(party: TurnParty, route: ApprovalRoute, name: string, raw: string, context: ToolContext): Promise<ToolResult> {
    const started = this.now();
    const tool = this.o.tools.resolve(name);
    const risk = riskOf(name, tool?.risk);
    const argsSha256 = sha256Hex(raw);
    const preview = raw.length > APPROVAL_PREVIEW_MAX_CHARS ? `${raw.slice(0, APPROVAL_PREVIEW_MAX_CHARS)}…` : raw;
    const audit = (decision: GateDecision, by: string, result: ToolResult | null) =>
      this.record(party, { tool: name, risk, argsSha256, preview, decision, by, result, started });

    // an unknown or unavailable tool refuses every call by itself: nothing to approve
    const answer: ApprovalAnswer | { refused: string } =
      tool === undefined || tool.unavailable !== undefined
        ? { decision: "allow", by: "policy", reason: null }
        : await this.decide(party, route, name, risk, argsSha256, preview, context.signal);
    if ("refused" in answer) {
      await audit("deny", route.kind === "refuse" ? "no-approver" : "policy", null);
      return fail(answer.refused);
    }
    if (answer.decision === "deny" || answer.decision === "timeout") {
      await audit(answer.decision, answer.by, null);
      return fail(deniedMessage(name, answer, this.o.autonomy.approval_timeout_s));
    }
    const result = await this.o.tools.call(name, raw, context);
    await audit(answer.decision, answer.by, result);
    return result;
  }

  private async decide(
    party: TurnParty,
    route: ApprovalRoute,
    name: string,
    risk: ToolRisk,
    argsSha256: string,
    preview: string,
    signal: AbortSignal,
  ): Promise<ApprovalAnswer | { refused: string }> {
    const { permission, setting } = permissionFor(this.o.autonomy, name, risk);
    if (permission === "allow") return { decision: "allow", by: "policy", reason: null };
    if (permission === "deny") {
      return { refused: `tool ${name} is not allowed here (${setting}); the owner can change that setting in config.toml` };
    }
    if (await this.o.broker.allowedForSession(party.sessionId, name)) return { decision: "allow_session", by: "session", reason: null };
    if (route.kind === "yes") return { decision: "allow", by: "--yes", reason: null };
    if (route.kind === "refuse") {
      const refused =
        `tool ${name} needs the owner's approval (${setting}) and no one can be asked here; ` +
        (route.hint ?? `allow it with [autonomy.tools] ${name} = "allow", or set [autonomy] level = "full"`);
      route.told?.(refused);
      return { refused };
    }
    const timeoutMs = this.o.autonomy.approval_timeout_s * 1000;
    const request = { sessionId: party.sessionId, channel: party.channel, sender: party.sender(), tool: name, risk, argsSha256, preview, timeoutMs };
    return this.o.broker.ask(request, route, signal);
  }

  private async record(
    party: TurnParty,
    call: { tool: string; risk: ToolRisk; argsSha256: string; preview: string; decision: GateDecision; by: string; result: ToolResult | null; started: number },
  ): Promise<void> {
    const { result } = call;
    const at = this.now();
    try {
      await this.o.audit().append({
        at,
        session_id: party.sessionId,
        channel: party.channel,
        sender: party.sender(),
        tool: call.tool,
        risk: call.risk,
        args_sha256: call.argsSha256,
        args_preview: call.preview,
        decision: call.decision,
        decided_by: call.by,
        outcome: result === null ? "not_run" : result.success ? "ok" : "error",
        error: result === null || result.success ? null : (result.error ?? result.output).slice(0, APPROVAL_PREVIEW_MAX_CHARS),
        duration_ms: at - call.started,
        agent: party.agent ?? "main",
      });
    } catch (error) {
      this.logger.error(`tool call ${call.tool} in session ${party.sessionId} was not written to the audit log: ${errorMessage(error)}`);
    }
  }
}

function deniedMessage(name: string, answer: ApprovalAnswer, timeoutS: number): string {
  if (answer.decision === "timeout") {
    return `tool ${name} was not run: the owner did not answer within ${timeoutS} s ([autonomy] approval_timeout_s), which counts as a denial`;
  }
  if (answer.by === "cancelled") return `tool ${name} was not run: the turn was cancelled while it waited for approval`;
  return `tool ${name} was not run: the owner denied it${answer.reason ? ` (${answer.reason})` : ""}`;
}
