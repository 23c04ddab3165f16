import type { ChatMessage } from "../providers/types.ts";
import type { AppendedMessage, InboxRef, MessageUsage, SessionStore, UsageCharge } from "../storage/types.ts";
import type { UsageRecorder } from "./usage-recorder.ts";

/** Where a turn's usage is counted, when the host keeps usage. */
export interface TranscriptUsage {
  recorder: UsageRecorder;
  /** The day and spender of a write, asked at the write (the day is the clock's then). */
  charge(): UsageCharge;
}

/**
 * What one turn writes to its session. Messages wait until `flush` and land together, in order; the session is created
 * with its first write, so a turn that fails before writing leaves no session behind. A stateless turn (its history
 * comes from the client) writes no messages, but its usage is counted. An assistant message carries the usage of the
 * model calls that wrote it, counted in the kept totals once the message is written.
 *
 * A turn that may run again after its process died in it (`rerun`) writes the user's message at once, with the mark of
 * the stored inbound message it answers (which records the user message's seq): the session shows the user's message
 * while the turn runs, and a rerun knows from the mark that the session holds it (and maybe the answer), and where.
 * Every flush writes, so each tool round (the calls and their results) is in the session once it completes and a rerun
 * goes on after the last one stored, running none of its calls again; only the calls of a round cut off before it was
 * written may run again.
 */
export class TurnTranscript {
  private readonly pending: AppendedMessage[] = [];
  private created = false;

  constructor(
    private readonly sessions: SessionStore,
    private readonly sessionId: string,
    private readonly channel: string,
    private readonly persist: boolean,
    private readonly usage?: TranscriptUsage,
    /** The agent a session this turn creates belongs to (default "main"). */
    private readonly agent?: string,
    private readonly rerun?: { answering?: InboxRef },
  ) {}

  add(...messages: ChatMessage[]): void {
    if (this.persist) this.pending.push(...messages);
  }

  /** An assistant message written by model calls of `usage`. */
  addAnswer(message: ChatMessage, usage: MessageUsage | undefined, ...results: ChatMessage[]): void {
    if (this.persist) this.pending.push(usage && this.usage ? { ...message, usage } : message, ...results);
    else if (usage && this.usage) this.usage.recorder.count(null, [usage], this.usage.charge());
  }

  /** Model calls whose answer left no message (the turn failed after them): counted all the same. */
  addSpent(usage: MessageUsage | undefined): void {
    if (usage && this.usage) this.usage.recorder.count(this.persist ? this.sessionId : null, [usage], this.usage.charge());
  }

  /**
   * Undefined when there was nothing to write (a stateless turn's every flush): nothing to wait for. `endsTurn`: the
   * turn's last write (its answer), which a store may make with the end of the session's lease (SessionStore.append).
   */
  flush(endsTurn = false): Promise<void> | undefined {
    if (this.pending.length === 0) return undefined;
    return this.write(endsTurn);
  }

  /** The first write creates the session when it is missing, in the same statement as the messages. */
  private async write(endsTurn: boolean): Promise<void> {
    const messages = this.pending.splice(0);
    const answering = messages[0]!.role === "user" ? this.rerun?.answering : undefined;
    await this.sessions.append(this.sessionId, messages, { channel: this.created ? undefined : this.channel, agent: this.agent, endsTurn, answering });
    this.created = true;
    this.count(messages);
  }

  private count(messages: AppendedMessage[]): void {
    if (!this.usage) return;
    const usages: MessageUsage[] = [];
    for (const message of messages) if (message.usage) usages.push(message.usage);
    if (usages.length > 0) this.usage.recorder.count(this.sessionId, usages, this.usage.charge());
  }
}
