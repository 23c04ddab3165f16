import type { Database } from "bun:sqlite";
import type { ChannelStateStore, ChannelStatusRow, InboxRow, InboxState } from "../types.ts";
import { migrateSqlite } from "./schema.ts";
import { statement } from "./statements.ts";

interface RawInbox {
  payload: string;
  state: InboxState;
  reply: string | null;
  parts_sent: number;
  started_seq: number | string | null;
}

export function toInboxRow(row: RawInbox): InboxRow {
  return {
    payload: row.payload,
    state: row.state,
    reply: row.reply === null ? null : (JSON.parse(row.reply) as string[]),
    partsSent: Number(row.parts_sent),
    startedSeq: row.started_seq === null ? null : Number(row.started_seq),
  };
}

/** SQL of the inbox, cursor and liveness statements, run per message and kept per database (statements.ts). */
const SQL = {
  cursor: "SELECT value FROM channel_cursor WHERE channel = ?",
  writeCursor:
    "INSERT INTO channel_cursor (channel, value, updated_at) VALUES (?, ?, ?) " +
    "ON CONFLICT(channel) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
  admit: "INSERT OR IGNORE INTO channel_inbox (channel, message_id, chat_key, payload, state, received_at, seq) VALUES (?, ?, ?, ?, ?, ?, ?)",
  lastSeq: "SELECT MAX(seq) AS seq FROM channel_inbox WHERE channel = ?",
  open: "SELECT payload, state, reply, parts_sent, started_seq FROM channel_inbox WHERE channel = ? AND state IN ('received', 'started', 'replied') ORDER BY seq",
  entry: "SELECT payload, state, reply, parts_sent, started_seq FROM channel_inbox WHERE channel = ? AND message_id = ?",
  replied: "UPDATE channel_inbox SET state = 'replied', reply = ? WHERE channel = ? AND message_id = ?",
  partSent: "UPDATE channel_inbox SET parts_sent = ? WHERE channel = ? AND message_id = ?",
  delivered: "UPDATE channel_inbox SET parts_sent = ?, state = 'done' WHERE channel = ? AND message_id = ?",
  done: "UPDATE channel_inbox SET state = 'done' WHERE channel = ? AND message_id = ?",
  prune: "DELETE FROM channel_inbox WHERE channel = ? AND state IN ('done', 'ignored') AND received_at < ?",
  writeStatus:
    "INSERT INTO channel_status (channel, pid, state, last_inbound, last_outbound, last_error, last_error_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) " +
    "ON CONFLICT(channel) DO UPDATE SET pid = excluded.pid, state = excluded.state, last_inbound = excluded.last_inbound, " +
    "last_outbound = excluded.last_outbound, last_error = excluded.last_error, last_error_at = excluded.last_error_at, updated_at = excluded.updated_at",
} as const;

/** Channel cursors, inboxes and liveness rows in the workspace database, shared by every channel process. */
export class SqliteChannelStateStore implements ChannelStateStore {
  private readonly seqs = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {
    migrateSqlite(db);
    this.cursorTransaction = db.transaction((channel: string, cursor: string, write: () => unknown) => {
      const result = write();
      this.writeCursor(channel, cursor);
      return result;
    }).immediate;
  }

  getCursor(channel: string): string | null {
    return statement<{ value: string }, [string]>(this.db, SQL.cursor).get(channel)?.value ?? null;
  }

  private writeCursor(channel: string, value: string): void {
    statement(this.db, SQL.writeCursor).run(channel, value, this.now());
  }

  admit(channel: string, messageId: string, chatKey: string, payload: string, state: InboxState, cursor?: string): boolean {
    const seq = this.nextSeq(channel);
    const insert = () => statement(this.db, SQL.admit).run(channel, messageId, chatKey, payload, state, this.now(), seq);
    const result = cursor === undefined ? insert() : this.withCursor(channel, cursor, insert);
    if (result.changes === 0) return false;
    this.seqs.set(channel, seq);
    return true;
  }

  private nextSeq(channel: string): number {
    let seq = this.seqs.get(channel);
    if (seq === undefined) {
      seq = statement<{ seq: number | null }, [string]>(this.db, SQL.lastSeq).get(channel)?.seq ?? 0;
      this.seqs.set(channel, seq);
    }
    return seq + 1;
  }

  open(channel: string): InboxRow[] {
    return statement<RawInbox, [string]>(this.db, SQL.open).all(channel).map(toInboxRow);
  }

  entry(channel: string, messageId: string): InboxRow | null {
    const row = statement<RawInbox, [string, string]>(this.db, SQL.entry).get(channel, messageId);
    return row ? toInboxRow(row) : null;
  }

  replied(channel: string, messageId: string, parts: string[]): void {
    statement(this.db, SQL.replied).run(JSON.stringify(parts), channel, messageId);
  }

  partSent(channel: string, messageId: string, partsSent: number): void {
    statement(this.db, SQL.partSent).run(partsSent, channel, messageId);
  }

  delivered(channel: string, messageId: string, partsSent: number): void {
    statement(this.db, SQL.delivered).run(partsSent, channel, messageId);
  }

  done(channel: string, messageId: string): void {
    statement(this.db, SQL.done).run(channel, messageId);
  }

  prune(channel: string, before: number): number {
    return statement(this.db, SQL.prune).run(channel, before).changes;
  }

  /** `write`, then the cursor, in one transaction (the wrapper made once: a channel write runs it per message). */
  private readonly cursorTransaction: (channel: string, cursor: string, write: () => unknown) => unknown;

  private withCursor<T>(channel: string, cursor: string, write: () => T): T {
    return this.cursorTransaction(channel, cursor, write) as T;
  }

  writeStatus(row: ChannelStatusRow, cursor?: string): void {
    if (cursor !== undefined) return this.withCursor(row.channel, cursor, () => this.writeStatus(row));
    statement(this.db, SQL.writeStatus).run(row.channel, row.pid, row.state, row.last_inbound, row.last_outbound, row.last_error, row.last_error_at, row.updated_at);
  }

  statuses(): ChannelStatusRow[] {
    return this.db.query<ChannelStatusRow, []>("SELECT * FROM channel_status ORDER BY channel").all();
  }
}
