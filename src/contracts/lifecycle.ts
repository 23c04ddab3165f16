/** Lifecycle events emitted by the agent loop, and their names on the event bus. */
export const LifecycleNames = [
  "agent_start",
  "llm_request",
  "llm_response",
  "tool_call_start",
  "tool_call",
  /** A middleware ended the turn: {plugin, capability, stage, reason}. */
  "middleware_block",
  "turn_complete",
  "agent_end",
  "error",
] as const;
export type LifecycleName = (typeof LifecycleNames)[number];

export const LIFECYCLE_TOPIC_PREFIX = "prx.lifecycle.";

function topicOf(name: string): string {
  return LIFECYCLE_TOPIC_PREFIX + (name === "agent_end" ? "agent_stop" : name);
}

/** Built once: the same string objects every turn (their hashes are cached for the bus's route lookups). */
const TOPICS = new Map<string, string>(LifecycleNames.map((name) => [name, topicOf(name)]));

/** agent_end is published as prx.lifecycle.agent_stop (the documented PRX name); the rest keep theirs. */
export function lifecycleTopic(name: LifecycleName | string): string {
  return TOPICS.get(name) ?? topicOf(name);
}
