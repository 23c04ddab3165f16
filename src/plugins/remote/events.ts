/**
 * Plugin event names <-> event bus topics. Dotted names are bus topics (patterns allowed, e.g.
 * "prx.lifecycle.*"); elizaOS names map to the nearest prx lifecycle event; other names live under "remote.<name>",
 * which is also where runtime.emitEvent(name) publishes, so plugins can talk to each other by name.
 */
export const ELIZA_EVENT_TOPICS: Record<string, string> = {
  MESSAGE_RECEIVED: "prx.lifecycle.agent_start",
  MESSAGE_SENT: "prx.lifecycle.turn_complete",
  RUN_STARTED: "prx.lifecycle.agent_start",
  RUN_ENDED: "prx.lifecycle.agent_stop",
  ACTION_STARTED: "prx.lifecycle.tool_call_start",
  ACTION_COMPLETED: "prx.lifecycle.tool_call",
  MODEL_USED: "prx.lifecycle.llm_response",
};

export function eventTopic(name: string): string {
  if (name.includes(".")) return name;
  return ELIZA_EVENT_TOPICS[name] ?? `remote.${name}`;
}
