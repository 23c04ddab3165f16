import { PrxError } from "../core/errors.ts";
import { fail } from "../tools/result.ts";
import type { HelperTurnOutcome, HelperTurnRequest } from "../tools/types.ts";
import type { SessionLinkStore } from "../storage/types.ts";
import type { TurnInput, TurnResult, TurnTools } from "./types.ts";

/** What starts a helper turn: the host's turn runner, where child sessions are linked, and the clock of the links. */
export interface HelperTurns {
  run(input: TurnInput): Promise<TurnResult>;
  links(): SessionLinkStore;
  now(): number;
}

/**
 * The tools as one turn sees them: only `input.toolNames` when it names some (a helper's subset: the others are
 * neither offered nor run), and each call able to start a helper turn for this turn (delegate).
 */
export function turnTools(tools: TurnTools, input: TurnInput, helpers: HelperTurns): TurnTools {
  const allowed = input.toolNames ? new Set(input.toolNames) : undefined;
  const runHelperTurn = (request: HelperTurnRequest) => runHelper(tools, input, request, helpers);
  const fromOwner = input.fromOwner;
  return {
    specs: allowed ? () => tools.specs().filter((spec) => allowed.has(spec.name)) : () => tools.specs(),
    call: (name, raw, context) =>
      allowed && !allowed.has(name)
        ? Promise.resolve(fail(`tool ${name} is not available to this helper; its tools: ${[...allowed].join(", ") || "(none)"}`))
        : tools.call(name, raw, fromOwner ? { ...context, runHelperTurn, fromOwner } : { ...context, runHelperTurn }),
  };
}

/**
 * A helper turn for `parent`: in its own (child) session, linked to the parent's once its tools are known to be a
 * subset of the parent's; for the same channel and sender (owner or not), approvals asked the same way, with the
 * parent's model.
 */
async function runHelper(
  tools: TurnTools,
  parent: TurnInput,
  request: HelperTurnRequest,
  helpers: HelperTurns,
): Promise<HelperTurnOutcome> {
  const available = tools.specs().map((spec) => spec.name).filter((name) => !parent.toolNames || parent.toolNames.includes(name));
  if (request.tools) {
    const unknown = request.tools.filter((name) => !available.includes(name));
    if (unknown.length > 0) {
      throw new PrxError("USAGE", `tools the helper cannot have: ${unknown.join(", ")}`, { hint: `choose among: ${available.join(", ")}` });
    }
  }
  const input: TurnInput = {
    sessionId: request.sessionId,
    text: request.task,
    channel: parent.channel,
    userId: parent.userId ?? null,
    signal: request.signal,
    maxIterations: request.maxIterations,
    tokenBudget: request.maxTokens,
    toolNames: request.tools ?? parent.toolNames ?? available,
  };
  if (request.systemPrompt !== undefined) input.systemPrompt = request.systemPrompt;
  if (parent.provider !== undefined) input.provider = parent.provider;
  if (parent.model !== undefined) input.model = parent.model;
  if (parent.approvals !== undefined) input.approvals = parent.approvals;
  if (parent.fromOwner !== undefined) input.fromOwner = parent.fromOwner;
  await helpers.links().link({ childId: request.sessionId, parentId: parent.sessionId, depth: request.depth, createdAt: helpers.now() });
  const result = await helpers.run(input);
  return { text: result.text, iterations: result.iterations, tokens: result.usage.total_tokens };
}
