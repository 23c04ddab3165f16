import { AgentSchema } from "../../config/schema.ts";
import { agentIdentity, type AgentIdentity } from "./agent.ts";

/** The identity of a host with the default `[agent]` table (tests, hosts without a config, a bare bootstrap()). */
export function defaultAgentIdentity(): AgentIdentity {
  return agentIdentity(AgentSchema.parse({}));
}
