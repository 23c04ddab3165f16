import type { ChannelStateStore, ChannelStatusRow, InboxRow, InboxState } from "../storage/types.ts";
import { PROCESSED_TTL_MS } from "./limits.ts";
import { InboundMessageSchema, type InboundMessage } from "./types.ts";

export type { ChannelStatusRow, InboxState } from "../storage/types.ts";

export interface InboxEntry {
  message: InboundMessage;
  state: InboxState;
  reply: string[] | null;
  partsSent: number;
  /** The seq of the message's user message in its session, once its turn started (InboxRow.startedSeq). */
  startedSeq?: number | null;
}

/** The chat a message belongs to for ordering and sessions: (channel, chat, thread). */
export function chatKeyOf(message: InboundMessage): string {
  return `${message.channel}:${message.chatId}${message.threadId ? `:${message.threadId}` : ""}`;
}

function toEntry(row: InboxRow): InboxEntry {
  const { state, reply, partsSent, startedSeq } = row;
  return { message: InboundMessageSchema.parse(JSON.parse(row.payload)), state, reply, partsSent, startedSeq };
}

/**
 * One channel's durable state, shared by every process (src/storage): the platform cursor, the inbox of messages by
 * platform id (a message delivered twice is stored once; one killed mid-turn is resumed on restart), and a liveness
 * row `prx channel status` reads. In the workspace SQLite database, or in PostgreSQL with `[storage] backend =
 * "postgres"` (a channel's process can then run on any host).
 *
 * The cursor is kept with the next write of the channel (the next message stored, the next liveness row, the one
 * written at stop), not in a write of its own: a message is stored before the cursor moves past it, and a process
 * that dies before that write reads the platform from the previous cursor again, where the inbox answers each
 * message once.
 */
export class ChannelStore {
  /** The cursor last set by this process (the one process of the channel: the stored one once written). */
  private cursor: string | null = null;
  /** `cursor` is not written yet. */
  private unwritten = false;

  constructor(
    private readonly state: ChannelStateStore,
    readonly channel: string,
    private readonly now: () => number = Date.now,
  ) {}

  async getCursor(): Promise<string | null> {
    return this.cursor ?? this.state.getCursor(this.channel);
  }

  /** Kept with the channel's next write (see above). */
  async setCursor(value: string): Promise<void> {
    this.cursor = value;
    this.unwritten = true;
  }

  /** Store a message once: false when its platform id was seen before (a redelivery). */
  async admit(message: InboundMessage, state: InboxState = "received"): Promise<boolean> {
    return this.withCursor((cursor) => this.state.admit(this.channel, message.id, chatKeyOf(message), JSON.stringify(message), state, cursor));
  }

  /** `write` with the cursor not written yet; when it fails, the cursor waits for the next write. */
  private async withCursor<T>(write: (cursor: string | undefined) => T | Promise<T>): Promise<T> {
    const cursor = this.unwritten && this.cursor !== null ? this.cursor : undefined;
    this.unwritten = false;
    try {
      return await write(cursor);
    } catch (error) {
      if (cursor !== undefined) this.unwritten = true;
      throw error;
    }
  }

  /** Messages not fully answered yet (a process killed mid-turn or mid-delivery), oldest first. */
  async open(): Promise<InboxEntry[]> {
    return (await this.state.open(this.channel)).map(toEntry);
  }

  async entry(messageId: string): Promise<InboxEntry | null> {
    const row = await this.state.entry(this.channel, messageId);
    return row ? toEntry(row) : null;
  }

  async replied(messageId: string, parts: string[]): Promise<void> {
    await this.state.replied(this.channel, messageId, parts);
  }

  async partSent(messageId: string, partsSent: number): Promise<void> {
    await this.state.partSent(this.channel, messageId, partsSent);
  }

  /** The last part is sent: the message is done (one write for both). */
  async delivered(messageId: string, partsSent: number): Promise<void> {
    await this.state.delivered(this.channel, messageId, partsSent);
  }

  async done(messageId: string): Promise<void> {
    await this.state.done(this.channel, messageId);
  }

  /** Forget answered messages older than PROCESSED_TTL_MS (platforms redeliver within minutes). */
  async prune(): Promise<number> {
    return this.state.prune(this.channel, this.now() - PROCESSED_TTL_MS);
  }

  async writeStatus(row: Omit<ChannelStatusRow, "channel" | "updated_at">): Promise<void> {
    await this.withCursor((cursor) => this.state.writeStatus({ ...row, channel: this.channel, updated_at: this.now() }, cursor));
  }
}

/** Every channel's liveness row (for `prx channel status`). */
export async function readChannelStatuses(store: ChannelStateStore): Promise<ChannelStatusRow[]> {
  return store.statuses();
}
