import type { EventPublisher } from "../../core/events.ts";
import { LIFECYCLE_TOPIC_PREFIX, LifecycleNames, lifecycleTopic } from "../../contracts/lifecycle.ts";
import type { LifecycleName } from "../../contracts/lifecycle.ts";

/**
 * Bridge between the agent loop's native lifecycle names and the documented `prx.lifecycle.*` topics.
 * The mapping itself lives in src/agent/lifecycle.ts (agent_end -> prx.lifecycle.agent_stop; the rest keep their name).
 */
export { LIFECYCLE_TOPIC_PREFIX, LifecycleNames, lifecycleTopic };
export type { LifecycleName };

const nativeNames: ReadonlySet<string> = new Set<string>([...LifecycleNames, "agent_stop"]);

export function isLifecycleName(name: string): name is LifecycleName {
  return (LifecycleNames as readonly string[]).includes(name);
}

/**
 * The bus topic for an event name: native lifecycle names (and `agent_stop`) become `prx.lifecycle.<name>`;
 * anything else (already a topic, or a custom event) is returned unchanged.
 */
export function bridgeEventName(name: string): string {
  return nativeNames.has(name) ? lifecycleTopic(name) : name;
}

/** Publish a native lifecycle event under its bridged topic. */
export function publishLifecycle(bus: EventPublisher, name: LifecycleName, payload: unknown): void {
  bus.publish(lifecycleTopic(name), payload);
}
