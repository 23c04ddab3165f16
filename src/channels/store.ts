import type { Database } from "bun:sqlite";
import { SqliteChannelStateStore } from "../storage/sqlite/channels.ts";
import type { ChannelStatusRow, InboxRow, InboxState } from "../storage/types.ts";
import { PROCESSED_TTL_MS } from "./limits.ts";
import { InboundMessageSchema, type InboundMessage } from "./types.ts";

export type { ChannelStatusRow, InboxState } from "../storage/types.ts";

export interface InboxEntry {
  message: InboundMessage;
  state: InboxState;
  reply: string[] | null;
  partsSent: number;
}

/** The chat a message belongs to for ordering and sessions: (channel, chat, thread). */
export function chatKeyOf(message: InboundMessage): string {
  return `${message.channel}:${message.chatId}${message.threadId ? `:${message.threadId}` : ""}`;
}

function toEntry(row: InboxRow): InboxEntry {
  return { message: InboundMessageSchema.parse(JSON.parse(row.payload)), state: row.state, reply: row.reply, partsSent: row.partsSent };
}

/**
 * One channel's durable state, shared by every process (src/storage): the platform cursor, the inbox of messages by
 * platform id (a message delivered twice is stored once; one killed mid-turn is resumed on restart), and a liveness
 * row `prx channel status` reads. Channel processes keep it in the workspace SQLite database.
 */
export class ChannelStore {
  private readonly state: SqliteChannelStateStore;

  constructor(
    db: Database,
    readonly channel: string,
    private readonly now: () => number = Date.now,
  ) {
    this.state = new SqliteChannelStateStore(db, now);
  }

  getCursor(): string | null {
    return this.state.getCursor(this.channel);
  }

  setCursor(value: string): void {
    this.state.setCursor(this.channel, value);
  }

  /** Store a message once: false when its platform id was seen before (a redelivery). */
  admit(message: InboundMessage, state: InboxState = "received"): boolean {
    return this.state.admit(this.channel, message.id, chatKeyOf(message), JSON.stringify(message), state);
  }

  /** Messages not fully answered yet (a process killed mid-turn or mid-delivery), oldest first. */
  open(): InboxEntry[] {
    return this.state.open(this.channel).map(toEntry);
  }

  entry(messageId: string): InboxEntry | null {
    const row = this.state.entry(this.channel, messageId);
    return row ? toEntry(row) : null;
  }

  replied(messageId: string, parts: string[]): void {
    this.state.replied(this.channel, messageId, parts);
  }

  partSent(messageId: string, partsSent: number): void {
    this.state.partSent(this.channel, messageId, partsSent);
  }

  done(messageId: string): void {
    this.state.done(this.channel, messageId);
  }

  /** Forget answered messages older than PROCESSED_TTL_MS (platforms redeliver within minutes). */
  prune(): number {
    return this.state.prune(this.channel, this.now() - PROCESSED_TTL_MS);
  }

  writeStatus(row: Omit<ChannelStatusRow, "channel" | "updated_at">): void {
    this.state.writeStatus({ ...row, channel: this.channel, updated_at: this.now() });
  }
}

/** Every channel's liveness row (for `prx channel status`). */
export function readChannelStatuses(db: Database): ChannelStatusRow[] {
  return new SqliteChannelStateStore(db).statuses();
}
