import type { EventPublisher } from "../../core/events.ts";
import { newId } from "../../core/ids.ts";
import type { AgentIdentity } from "./agent.ts";
import { userEntityId } from "./host/bindings/index.ts";
import { REMOTE_ELIZA_RUNS_MAX } from "./limits.ts";

/** The turn as elizaOS describes a message to its listeners. */
export interface ElizaTurnInput {
  sessionId: string;
  channel: string;
  text: string;
  userId?: string | null;
}

interface Run {
  runId: string;
  messageId: string;
  startTime: number;
  source: string;
}

const topic = (name: string) => `eliza.${name}`;

/**
 * elizaOS's run events for the host's turns, published on the bus as `eliza.<NAME>` (where remote plugins' handlers
 * of those names listen) with the payloads @elizaos/core 1.7.2 declares (the worker adds `runtime`):
 * MESSAGE_RECEIVED and RUN_STARTED when a turn reads the user's message, MODEL_USED per model answer,
 * ACTION_STARTED / ACTION_COMPLETED per tool call, MESSAGE_SENT with the reply, RUN_ENDED when the turn ends (ok or
 * not). A session is a room (`roomId` = session id), its user an entity; nothing is built when nobody listens.
 */
export class ElizaTurnEvents {
  /** Runs in progress by session (one turn per session at a time), at most REMOTE_ELIZA_RUNS_MAX. */
  private readonly runs = new Map<string, Run>();

  constructor(
    private readonly bus: EventPublisher,
    private readonly agent: () => AgentIdentity,
    private readonly now: () => number = Date.now,
  ) {}

  private wants(name: string): boolean {
    return this.bus.wants?.(topic(name)) !== false;
  }

  private publish(name: string, payload: () => Record<string, unknown>): void {
    if (this.wants(name)) this.bus.publish(topic(name), payload());
  }

  /** The lifecycle topics to hear for these events (a lifecycle emitter asks before it builds a payload). */
  wantsLifecycle(lifecycleTopic: string): boolean {
    switch (lifecycleTopic) {
      case "prx.lifecycle.llm_response":
        return this.wants("MODEL_USED");
      case "prx.lifecycle.tool_call_start":
        return this.wants("ACTION_STARTED");
      case "prx.lifecycle.tool_call":
        return this.wants("ACTION_COMPLETED");
      case "prx.lifecycle.agent_stop":
        return this.runs.size > 0;
      default:
        return false;
    }
  }

  /** The turn read the user's message: MESSAGE_RECEIVED, then RUN_STARTED. */
  received(input: ElizaTurnInput): void {
    const run: Run = { runId: newId("run"), messageId: newId("msg"), startTime: this.now(), source: input.channel };
    if (!this.wants("MESSAGE_RECEIVED") && !this.wants("RUN_STARTED") && !this.wants("RUN_ENDED") && !this.wants("MESSAGE_SENT")) return;
    if (this.runs.size >= REMOTE_ELIZA_RUNS_MAX) this.runs.delete(this.runs.keys().next().value!);
    this.runs.set(input.sessionId, run);
    const entityId = userEntityId(input.sessionId);
    this.publish("MESSAGE_RECEIVED", () => ({
      source: run.source,
      message: {
        id: run.messageId,
        entityId,
        agentId: this.agent().id,
        roomId: input.sessionId,
        createdAt: run.startTime,
        content: { text: input.text, source: run.source },
        ...(input.userId ? { metadata: { userId: input.userId } } : {}),
      },
    }));
    this.publish("RUN_STARTED", () => ({
      source: run.source,
      runId: run.runId,
      messageId: run.messageId,
      roomId: input.sessionId,
      entityId,
      startTime: run.startTime,
      status: "started",
    }));
  }

  /** A lifecycle event of a turn, as the agent loop published it (`session_id`, `channel` and its own fields). */
  lifecycle(lifecycleTopic: string, payload: unknown): void {
    const p = (payload ?? {}) as Record<string, unknown>;
    const sessionId = typeof p.session_id === "string" ? p.session_id : "";
    const run = this.runs.get(sessionId);
    const source = typeof p.channel === "string" ? p.channel : (run?.source ?? "prx");
    switch (lifecycleTopic) {
      case "prx.lifecycle.llm_response":
        this.publish("MODEL_USED", () => {
          const usage = p.usage as { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | undefined;
          return {
            source,
            provider: String(p.provider ?? ""),
            type: "TEXT_LARGE",
            prompt: "",
            model: p.model,
            ...(usage
              ? { tokens: { prompt: usage.prompt_tokens ?? 0, completion: usage.completion_tokens ?? 0, total: usage.total_tokens ?? 0 } }
              : {}),
          };
        });
        return;
      case "prx.lifecycle.tool_call_start":
      case "prx.lifecycle.tool_call": {
        const done = lifecycleTopic === "prx.lifecycle.tool_call";
        this.publish(done ? "ACTION_COMPLETED" : "ACTION_STARTED", () => ({
          source,
          roomId: sessionId,
          world: sessionId,
          content: { actions: [String(p.tool)], ...(done ? { actionStatus: p.success === true ? "completed" : "failed" } : {}) },
          ...(run ? { messageId: run.messageId } : {}),
        }));
        return;
      }
      case "prx.lifecycle.agent_stop": {
        if (!run) return;
        this.runs.delete(sessionId);
        const endTime = this.now();
        const failed = p.ok === false;
        this.publish("RUN_ENDED", () => ({
          source,
          runId: run.runId,
          messageId: run.messageId,
          roomId: sessionId,
          entityId: userEntityId(sessionId),
          startTime: run.startTime,
          status: "completed",
          endTime,
          duration: endTime - run.startTime,
          ...(failed ? { error: String(p.code ?? "the turn failed") } : {}),
        }));
        return;
      }
    }
  }

  /** The reply the turn sent: MESSAGE_SENT with the agent's message. */
  sent(input: ElizaTurnInput, reply: string): void {
    this.publish("MESSAGE_SENT", () => ({
      source: input.channel,
      message: {
        id: newId("msg"),
        entityId: this.agent().id,
        agentId: this.agent().id,
        roomId: input.sessionId,
        createdAt: this.now(),
        content: { text: reply, source: input.channel, inReplyTo: this.runs.get(input.sessionId)?.messageId },
      },
    }));
  }

  /** A publisher for the agent loop: lifecycle events pass on to `inner` and feed the elizaOS events. */
  publisher(inner: EventPublisher): EventPublisher {
    return {
      publish: (t, payload) => {
        if (inner.wants?.(t) !== false) inner.publish(t, payload);
        if (this.wantsLifecycle(t)) this.lifecycle(t, payload);
      },
      wants: (t) => inner.wants?.(t) !== false || this.wantsLifecycle(t),
    };
  }
}
