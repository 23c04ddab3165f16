import type { ChatMessage } from "../providers/types.ts";
import type { SessionStore } from "../storage/types.ts";

/**
 * What one turn writes to its session. Messages wait until `flush` and land together, in order; the session is created
 * with its first write, so a turn that fails before writing leaves no session behind. A stateless turn (its history
 * comes from the client) writes nothing.
 */
export class TurnTranscript {
  private readonly pending: ChatMessage[] = [];
  private created = false;

  constructor(
    private readonly sessions: SessionStore,
    private readonly sessionId: string,
    private readonly channel: string,
    private readonly persist: boolean,
  ) {}

  add(...messages: ChatMessage[]): void {
    if (this.persist) this.pending.push(...messages);
  }

  /** Undefined when there was nothing to write (a stateless turn's every flush): nothing to wait for. */
  flush(): Promise<void> | undefined {
    return this.pending.length === 0 ? undefined : this.write();
  }

  /** The first write creates the session when it is missing, in the same statement as the messages. */
  private async write(): Promise<void> {
    await this.sessions.append(this.sessionId, this.pending.splice(0), this.created ? undefined : this.channel);
    this.created = true;
  }
}
