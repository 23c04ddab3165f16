import type { SQL } from "bun";
import { toInboxRow } from "../sqlite/channels.ts";
import type { ChannelStateStore, ChannelStatusRow, InboxRow, InboxState } from "../types.ts";
import { pg } from "./connect.ts";

const INBOX = "SELECT payload, state, reply, parts_sent, started_seq FROM channel_inbox";
/** The cursor of channel $1 set to the value and time given by their parameter numbers. */
const cursorUpsert = (value: string, at: string) =>
  `INSERT INTO channel_cursor (channel, value, updated_at) VALUES ($1, ${value}, ${at}) ` +
  "ON CONFLICT (channel) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at";

/** Channel cursors, inboxes and liveness rows in PostgreSQL, shared by channel processes on every host. */
export class PgChannelStateStore implements ChannelStateStore {
  constructor(
    private readonly sql: SQL,
    private readonly now: () => number = Date.now,
  ) {}

  getCursor(channel: string): Promise<string | null> {
    return pg("channel cursor", async () => (await this.sql.unsafe("SELECT value FROM channel_cursor WHERE channel = $1", [channel]))[0]?.value ?? null);
  }

  admit(channel: string, messageId: string, chatKey: string, payload: string, state: InboxState, cursor?: string): Promise<boolean> {
    const now = this.now();
    const insert =
      "INSERT INTO channel_inbox (channel, message_id, chat_key, payload, state, received_at) VALUES ($1, $2, $3, $4, $5, $6) " +
      "ON CONFLICT (channel, message_id) DO NOTHING";
    return pg("channel admit", async () =>
      cursor === undefined
        ? (await this.sql.unsafe(insert, [channel, messageId, chatKey, payload, state, now])).count === 1
        : // one statement: the cursor moves whether or not the message was new
          (await this.sql.unsafe(`WITH moved AS (${cursorUpsert("$7", "$6")}) ${insert}`, [channel, messageId, chatKey, payload, state, now, cursor])).count ===
          1,
    );
  }

  open(channel: string): Promise<InboxRow[]> {
    return pg("channel inbox", async () =>
      (await this.sql.unsafe(`${INBOX} WHERE channel = $1 AND state IN ('received', 'started', 'replied') ORDER BY seq`, [channel])).map(toInboxRow),
    );
  }

  entry(channel: string, messageId: string): Promise<InboxRow | null> {
    return pg("channel inbox", async () => {
      const row = (await this.sql.unsafe(`${INBOX} WHERE channel = $1 AND message_id = $2`, [channel, messageId]))[0];
      return row ? toInboxRow(row) : null;
    });
  }

  async replied(channel: string, messageId: string, parts: string[]): Promise<void> {
    await pg("channel reply", () =>
      this.sql.unsafe("UPDATE channel_inbox SET state = 'replied', reply = $1 WHERE channel = $2 AND message_id = $3", [
        JSON.stringify(parts),
        channel,
        messageId,
      ]),
    );
  }

  async partSent(channel: string, messageId: string, partsSent: number): Promise<void> {
    await pg("channel delivery", () =>
      this.sql.unsafe("UPDATE channel_inbox SET parts_sent = $1 WHERE channel = $2 AND message_id = $3", [partsSent, channel, messageId]),
    );
  }

  async delivered(channel: string, messageId: string, partsSent: number): Promise<void> {
    await pg("channel delivery", () =>
      this.sql.unsafe("UPDATE channel_inbox SET parts_sent = $1, state = 'done' WHERE channel = $2 AND message_id = $3", [
        partsSent,
        channel,
        messageId,
      ]),
    );
  }

  async done(channel: string, messageId: string): Promise<void> {
    await pg("channel done", () => this.sql.unsafe("UPDATE channel_inbox SET state = 'done' WHERE channel = $1 AND message_id = $2", [channel, messageId]));
  }

  prune(channel: string, before: number): Promise<number> {
    return pg("channel prune", async () =>
      (
        await this.sql.unsafe("DELETE FROM channel_inbox WHERE channel = $1 AND state IN ('done', 'ignored') AND received_at < $2", [
          channel,
          before,
        ])
      ).count,
    );
  }

  async writeStatus(row: ChannelStatusRow, cursor?: string): Promise<void> {
    const upsert =
      "INSERT INTO channel_status (channel, pid, state, last_inbound, last_outbound, last_error, last_error_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) " +
      "ON CONFLICT (channel) DO UPDATE SET pid = excluded.pid, state = excluded.state, last_inbound = excluded.last_inbound, " +
      "last_outbound = excluded.last_outbound, last_error = excluded.last_error, last_error_at = excluded.last_error_at, updated_at = excluded.updated_at";
    const values = [row.channel, row.pid, row.state, row.last_inbound, row.last_outbound, row.last_error, row.last_error_at, row.updated_at];
    await pg("channel status", () =>
      cursor === undefined
        ? this.sql.unsafe(upsert, values)
        : // one statement: the liveness row and the cursor
          this.sql.unsafe(`WITH moved AS (${cursorUpsert("$9", "$8")}) ${upsert}`, [...values, cursor]),
    );
  }

  statuses(): Promise<ChannelStatusRow[]> {
    return pg("channel status", async () => (await this.sql.unsafe("SELECT * FROM channel_status ORDER BY channel")) as ChannelStatusRow[]);
  }
}
