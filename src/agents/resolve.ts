import type { AgentProfile, Config } from "../config/schema.ts";
import { PrxError } from "../core/errors.ts";
import { MAIN_AGENT, type ResolvedAgent } from "./types.ts";

/**
 * Every agent of a configuration, `main` first. `main` is `[agent]` (with `[agents.main]` laid over it when there is
 * one); every other `[agents.<id>]` takes what it leaves out from `[agent]` and the top level. (The schema has checked
 * that every binding names one of them.)
 */
export function resolveAgents(config: Config): Map<string, ResolvedAgent> {
  const agents = new Map<string, ResolvedAgent>();
  agents.set(MAIN_AGENT, resolveOne(config, MAIN_AGENT, config.agents[MAIN_AGENT]));
  for (const [id, profile] of Object.entries(config.agents)) if (id !== MAIN_AGENT) agents.set(id, resolveOne(config, id, profile));
  return agents;
}

function resolveOne(config: Config, id: string, profile: AgentProfile | undefined): ResolvedAgent {
  if (!profile) {
    return { id, name: config.agent.name, config, memoryScope: "shared", toolsAllow: null, toolsDeny: [], skills: null };
  }
  const agent = {
    ...config.agent,
    ...(profile.name !== undefined ? { name: profile.name } : {}),
    ...(profile.bio !== undefined ? { bio: profile.bio } : {}),
    ...(profile.system_prompt !== undefined ? { system_prompt: profile.system_prompt } : {}),
    ...(profile.temperature !== undefined ? { temperature: profile.temperature } : {}),
  };
  const overrides = profile.autonomy;
  const autonomy = overrides
    ? {
        level: overrides.level ?? config.autonomy.level,
        approval_timeout_s: overrides.approval_timeout_s ?? config.autonomy.approval_timeout_s,
        tools: { ...config.autonomy.tools, ...(overrides.tools ?? {}) },
      }
    : config.autonomy;
  // a provider of the agent's own with no model of its own would pair the top-level model with another provider
  const provider = profile.default_provider ?? config.default_provider;
  const model = profile.default_model ?? (profile.default_provider !== undefined ? firstModel(config, provider) : config.default_model);
  const resolved: Config = { ...config, default_provider: provider, default_model: model, agent, autonomy };
  return {
    id,
    name: agent.name,
    config: resolved,
    memoryScope: profile.memory_scope,
    toolsAllow: profile.tools.allow ?? null,
    toolsDeny: profile.tools.deny,
    skills: profile.skills ?? null,
  };
}

function firstModel(config: Config, provider: string): string {
  return config.providers[provider]?.models[0] ?? config.default_model;
}

/** The agent a turn names (default `main`); AGENT_NOT_FOUND names the ones there are. */
export function agentOf(agents: ReadonlyMap<string, ResolvedAgent>, id: string | undefined): ResolvedAgent {
  const agent = agents.get(id ?? MAIN_AGENT);
  if (agent) return agent;
  throw new PrxError("AGENT_NOT_FOUND", `no agent "${id}"`, {
    status: 404,
    hint: `use one of: ${[...agents.keys()].join(", ")} (or add an [agents.${id}] table to config.toml)`,
  });
}
