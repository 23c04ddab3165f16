import { lifecycleTopic, type LifecycleName } from "../contracts/lifecycle.ts";
import type { EventPublisher } from "../core/events.ts";
import type { LifecycleEmit, TurnInput, TurnResult } from "./types.ts";

/** Publishes a lifecycle event with the turn's session and channel, unless nobody listens to its topic. */
export function lifecycleEmitter(events: EventPublisher, input: TurnInput): LifecycleEmit {
  return (name, payload) => {
    const topic = lifecycleTopic(name);
    if (events.wants?.(topic) !== false) events.publish(topic, { session_id: input.sessionId, channel: input.channel, ...payload });
  };
}

/** Whether anyone listens to lifecycle event `name`: a turn builds the payloads of its own events only then. */
export function lifecycleWanted(events: EventPublisher, name: LifecycleName): boolean {
  return events.wants?.(lifecycleTopic(name)) !== false;
}

/** A completed turn's events: a block's middleware_block first, then turn_complete and agent_end. */
export function emitCompletion(emit: LifecycleEmit, result: TurnResult, events: EventPublisher): void {
  if (!lifecycleWanted(events, "turn_complete") && !lifecycleWanted(events, "agent_end") && !lifecycleWanted(events, "middleware_block")) return;
  const { iterations, toolCalls, usage, blocked, clientToolCalls } = result;
  if (blocked) {
    emit("middleware_block", { ...blocked });
    emit("turn_complete", { iterations, tool_calls: toolCalls.length, usage, blocked: true });
    emit("agent_end", { ok: true, blocked: true });
    return;
  }
  const client = clientToolCalls ? { client_tool_calls: clientToolCalls.length } : {};
  emit("turn_complete", { iterations, tool_calls: toolCalls.length, usage, ...client });
  emit("agent_end", { ok: true });
}
