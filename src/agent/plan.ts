import type { ModelChoice } from "../providers/routes.ts";
import type { Provider, ToolSpec } from "../providers/types.ts";
import type { TurnDeps, TurnInput, TurnTools } from "./types.ts";

/** What a turn asks for that decides which model answers and which tools it is offered. */
export type TurnRequest = Pick<TurnInput, "agent" | "provider" | "model" | "clientTools" | "toolChoice">;

/**
 * The model choice of one turn, resolved once where the request enters (a gateway route that must refuse before it
 * streams, or the host at the start of the turn) and passed down: nothing after it resolves a provider or model again.
 */
export interface TurnPlan {
  /** The provider and model asked first (a `hint:` route already followed). */
  readonly choice: ModelChoice;
  /** That provider behind the `[reliability]` wrapper with its fallbacks; a plugin provider is a stable proxy. */
  readonly provider: Provider;
  /** Tools the client runs itself, offered beside the server's (TurnInput.clientTools). */
  readonly clientTools: readonly ToolSpec[];
  /** Their names; undefined when the client brought none. */
  readonly clientNames: ReadonlySet<string> | undefined;
  /** The model is offered no tool at all (TurnInput.toolChoice "none"). */
  readonly noTools: boolean;
}

/** Throws when the model or provider cannot be resolved (an unknown `hint:`, provider or plugin provider). */
export function planTurn(deps: Pick<TurnDeps, "providers" | "resolveModelChoice">, request: TurnRequest): TurnPlan {
  const choice = deps.resolveModelChoice({ provider: request.provider, model: request.model, agent: request.agent });
  const provider = deps.providers.resolve(choice.provider);
  const clientTools = request.clientTools ?? [];
  const clientNames = clientTools.length > 0 ? new Set(clientTools.map((tool) => tool.name)) : undefined;
  return { choice, provider, clientTools, clientNames, noTools: request.toolChoice === "none" };
}

/** The tools a model call is offered: the server's, then the client's; none once `spent` or when the request said "none". */
export function offeredTools(plan: TurnPlan, server: Pick<TurnTools, "specs">, spent: boolean): ToolSpec[] {
  if (spent || plan.noTools) return [];
  return plan.clientNames ? [...server.specs(), ...plan.clientTools] : server.specs();
}
