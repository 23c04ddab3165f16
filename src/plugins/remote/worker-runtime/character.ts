import type { AgentIdentity } from "../agent.ts";
import type { Character } from "./runtime-types.ts";

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * runtime.character: name, bio and system from `[agent]` of config.toml, id = runtime.agentId. elizaOS lists prx has
 * no notion of (topics, adjectives, examples, knowledge, style, templates) are empty; settings and secrets are empty
 * too: a plugin reads its settings with runtime.getSetting.
 */
export function characterOf(agent: AgentIdentity): Readonly<Character> {
  return deepFreeze({
    id: agent.id,
    name: agent.name,
    username: agent.name,
    bio: Array.isArray(agent.bio) ? [...agent.bio] : agent.bio,
    system: agent.system,
    plugins: [],
    topics: [],
    adjectives: [],
    postExamples: [],
    messageExamples: [],
    knowledge: [],
    templates: {},
    settings: {},
    secrets: {},
    style: { all: [], chat: [], post: [] },
  });
}
