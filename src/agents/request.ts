import { PrxError } from "../core/errors.ts";
import { AGENT_MODEL_PREFIX } from "./types.ts";

/**
 * The agent a request names and the model it asks for: `model = "agent:<id>"` names the agent (whose own model then
 * answers); `agent` names it directly. Naming two different agents is a usage error.
 */
export function agentRequest(request: { agent?: string; model?: string }): { agent: string | undefined; model: string | undefined } {
  const { model } = request;
  if (model === undefined || !model.startsWith(AGENT_MODEL_PREFIX)) return { agent: request.agent, model };
  const named = model.slice(AGENT_MODEL_PREFIX.length);
  if (request.agent !== undefined && request.agent !== named) {
    throw new PrxError("USAGE", `the request names agent "${request.agent}" and model "${model}"`, {
      status: 400,
      hint: "name one agent: either the agent or the agent:<id> model",
    });
  }
  return { agent: named, model: undefined };
}
