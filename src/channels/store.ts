import type { Database } from "bun:sqlite";
import { ensureSchema } from "../core/database.ts";
import { InboundMessageSchema, type InboundMessage } from "./types.ts";
import { PROCESSED_TTL_MS } from "./limits.ts";

const DDL = `
CREATE TABLE IF NOT EXISTS channel_cursor (
  channel TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS channel_inbox (
  channel TEXT NOT NULL,
  message_id TEXT NOT NULL,
  chat_key TEXT NOT NULL,
  payload TEXT NOT NULL,
  state TEXT NOT NULL,
  reply TEXT,
  parts_sent INTEGER NOT NULL DEFAULT 0,
  received_at INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (channel, message_id)
);
CREATE INDEX IF NOT EXISTS channel_inbox_open ON channel_inbox (channel, state, seq);
CREATE INDEX IF NOT EXISTS channel_inbox_age ON channel_inbox (received_at);
CREATE TABLE IF NOT EXISTS channel_status (
  channel TEXT PRIMARY KEY,
  pid INTEGER,
  state TEXT NOT NULL,
  last_inbound INTEGER,
  last_outbound INTEGER,
  last_error TEXT,
  updated_at INTEGER NOT NULL
);`;

/** received: stored, the turn has not finished; replied: the reply is stored, parts_sent of it delivered; done. */
export type InboxState = "received" | "replied" | "done" | "ignored";

export interface InboxEntry {
  message: InboundMessage;
  state: InboxState;
  reply: string[] | null;
  partsSent: number;
}

export interface ChannelStatusRow {
  channel: string;
  pid: number | null;
  state: string;
  last_inbound: number | null;
  last_outbound: number | null;
  last_error: string | null;
  updated_at: number;
}

/** The chat a message belongs to for ordering and sessions: (channel, chat, thread). */
export function chatKeyOf(message: InboundMessage): string {
  return `${message.channel}:${message.chatId}${message.threadId ? `:${message.threadId}` : ""}`;
}

/**
 * A channel's durable state in the workspace database, shared by every process: the platform cursor, the inbox of
 * messages by platform id (a message delivered twice is stored once; one killed mid-turn is resumed on restart), and
 * a liveness row `prx channel status` reads.
 */
export class ChannelStore {
  private seq: number;

  constructor(
    private readonly db: Database,
    readonly channel: string,
    private readonly now: () => number = Date.now,
  ) {
    ensureSchema(db, "channels", DDL);
    const row = db.query("SELECT MAX(seq) AS seq FROM channel_inbox WHERE channel = ?").get(channel) as {
      seq: number | null;
    };
    this.seq = row.seq ?? 0;
  }

  getCursor(): string | null {
    const row = this.db.query("SELECT value FROM channel_cursor WHERE channel = ?").get(this.channel) as
      | { value: string }
      | null;
    return row?.value ?? null;
  }

  setCursor(value: string): void {
    this.db
      .query("INSERT INTO channel_cursor (channel, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(channel) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at")
      .run(this.channel, value, this.now());
  }

  /** Store a message once: false when its platform id was seen before (a redelivery). */
  admit(message: InboundMessage, state: InboxState = "received"): boolean {
    const result = this.db
      .query(
        "INSERT OR IGNORE INTO channel_inbox (channel, message_id, chat_key, payload, state, received_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?)",
      )
      .run(this.channel, message.id, chatKeyOf(message), JSON.stringify(message), state, this.now(), this.seq + 1);
    if (result.changes === 0) return false;
    this.seq += 1;
    return true;
  }

  /** Messages not fully answered yet (a process killed mid-turn or mid-delivery), oldest first. */
  open(): InboxEntry[] {
    const rows = this.db
      .query("SELECT payload, state, reply, parts_sent FROM channel_inbox WHERE channel = ? AND state IN ('received', 'replied') ORDER BY seq")
      .all(this.channel) as Array<{ payload: string; state: InboxState; reply: string | null; parts_sent: number }>;
    return rows.map((row) => ({
      message: InboundMessageSchema.parse(JSON.parse(row.payload)),
      state: row.state,
      reply: row.reply === null ? null : (JSON.parse(row.reply) as string[]),
      partsSent: row.parts_sent,
    }));
  }

  entry(messageId: string): InboxEntry | null {
    const row = this.db
      .query("SELECT payload, state, reply, parts_sent FROM channel_inbox WHERE channel = ? AND message_id = ?")
      .get(this.channel, messageId) as { payload: string; state: InboxState; reply: string | null; parts_sent: number } | null;
    if (!row) return null;
    return {
      message: InboundMessageSchema.parse(JSON.parse(row.payload)),
      state: row.state,
      reply: row.reply === null ? null : (JSON.parse(row.reply) as string[]),
      partsSent: row.parts_sent,
    };
  }

  replied(messageId: string, parts: string[]): void {
    this.db
      .query("UPDATE channel_inbox SET state = 'replied', reply = ? WHERE channel = ? AND message_id = ?")
      .run(JSON.stringify(parts), this.channel, messageId);
  }

  partSent(messageId: string, partsSent: number): void {
    this.db
      .query("UPDATE channel_inbox SET parts_sent = ? WHERE channel = ? AND message_id = ?")
      .run(partsSent, this.channel, messageId);
  }

  done(messageId: string): void {
    this.db.query("UPDATE channel_inbox SET state = 'done' WHERE channel = ? AND message_id = ?").run(this.channel, messageId);
  }

  /** Forget answered messages older than PROCESSED_TTL_MS (platforms redeliver within minutes). */
  prune(): number {
    return this.db
      .query("DELETE FROM channel_inbox WHERE channel = ? AND state IN ('done', 'ignored') AND received_at < ?")
      .run(this.channel, this.now() - PROCESSED_TTL_MS).changes;
  }

  writeStatus(row: Omit<ChannelStatusRow, "channel" | "updated_at">): void {
    this.db
      .query(
        "INSERT INTO channel_status (channel, pid, state, last_inbound, last_outbound, last_error, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) " +
          "ON CONFLICT(channel) DO UPDATE SET pid = excluded.pid, state = excluded.state, last_inbound = excluded.last_inbound, " +
          "last_outbound = excluded.last_outbound, last_error = excluded.last_error, updated_at = excluded.updated_at",
      )
      .run(this.channel, row.pid, row.state, row.last_inbound, row.last_outbound, row.last_error, this.now());
  }
}

/** Every channel's liveness row (for `prx channel status`). */
export function readChannelStatuses(db: Database): ChannelStatusRow[] {
  ensureSchema(db, "channels", DDL);
  return db.query("SELECT * FROM channel_status ORDER BY channel").all() as ChannelStatusRow[];
}
