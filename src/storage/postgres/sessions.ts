import type { SQL } from "bun";
import type { ChatMessage } from "../../contracts/chat.ts";
import { historyFrom, toConversationSummary, mediaColumn, mediaHashes, renamedTitle, searchPattern, titleFrom, toHistoryEntry, toStored, toSummary, validateSessionId, type HistoryRow, type MessageRow, type SessionRow, type SummaryRow } from "../session-history.ts";
import type { AppendedMessage, AppendOptions, ConversationSummary, InboxRef, NewConversationSummary, SessionStore, SessionSummary, StoredMessage } from "../types.ts";
import { pg, pgFailure } from "./connect.ts";
import { HISTORY_MESSAGES, NEWEST_SUMMARY, RECENT_MESSAGES, type HistoryPrefetch } from "./history-prefetch.ts";
import { APPEND_RACE_RETRIES, isUniqueViolation, type TurnWrites } from "./turn-writes.ts";

const COLUMNS = "id, title, channel, agent, created_at, updated_at, message_count";
const SUMMARY = `SELECT ${COLUMNS} FROM sessions s`;

/**
 * A session search ($1 a searchPattern, $2 the limit), on `sessions_search` (each session's id and title, kept by
 * triggers) whose trigram indexes serve its LIKEs (migration-sessions.ts).
 */
export const SEARCH = `${SUMMARY} WHERE s.id IN (SELECT t.id FROM sessions_search t
    WHERE lower(t.title) LIKE $1 ESCAPE '\\' OR lower(t.id) LIKE $1 ESCAPE '\\') ORDER BY s.updated_at DESC LIMIT $2`;

/**
 * The history of a turn run again ($3: the seq of its user message): its last `limit` messages ($2) end before the
 * first user message written after it (another turn's), after the newest summary made before it.
 */
const HISTORY_AT = `SELECT seq, role, content, tool_calls, tool_call_id, name, media FROM (
    SELECT seq, role, content, tool_calls, tool_call_id, name, media FROM session_messages WHERE session_id = $1
    AND seq > COALESCE((SELECT MAX(through_seq) FROM session_summaries WHERE session_id = $1 AND through_seq < $3), 0)
    AND seq < COALESCE((SELECT MIN(seq) FROM session_messages WHERE session_id = $1 AND seq > $3 AND role = 'user'), 9223372036854775807)
    ORDER BY seq DESC LIMIT $2) t ORDER BY seq ASC`;

/** Sessions and their history in PostgreSQL, shared by every replica. */
export class PgSessionStore implements SessionStore {
  constructor(
    private readonly sql: SQL,
    /** History read by the session lease in its own round trip, and the lease's connection (see history-prefetch.ts). */
    private readonly prefetch?: HistoryPrefetch,
    /** Appends to a session leased here, kept for the statement that ends its lease (see turn-writes.ts). */
    private readonly writes?: TurnWrites,
  ) {}

  /** Before a read of session `id`: what this process appended to it while leasing it is written (or being written). */
  private settled(id: string): Promise<unknown> | undefined {
    return this.writes?.settled(id, this.prefetch?.connection(id));
  }

  /** Before a read of many sessions: every session's kept appends written. */
  private async settledAll(): Promise<void> {
    if (!this.writes) return;
    for (const id of this.writes.ids()) await this.settled(id);
  }

  list(limit = 100, agent?: string): Promise<SessionSummary[]> {
    return pg("session list", async () => {
      await this.settledAll();
      const rows = (
        agent === undefined
          ? await this.sql.unsafe(`${SUMMARY} ORDER BY s.updated_at DESC LIMIT $1`, [limit])
          : await this.sql.unsafe(`${SUMMARY} WHERE s.agent = $2 ORDER BY s.updated_at DESC LIMIT $1`, [limit, agent])
      ) as SessionRow[];
      return rows.map(toSummary);
    });
  }

  search(text: string, limit = 100): Promise<SessionSummary[]> {
    const pattern = searchPattern(text);
    return pg("session search", async () => {
      await this.settledAll();
      return ((await this.sql.unsafe(SEARCH, [pattern, limit])) as SessionRow[]).map(toSummary);
    });
  }

  async rename(id: string, title: string): Promise<SessionSummary | null> {
    const renamed = renamedTitle(title);
    await pg("session rename", async () => this.settled(id));
    const updated = await pg("session rename", () => this.sql.unsafe("UPDATE sessions SET title = $2 WHERE id = $1", [id, renamed]));
    return updated.count === 0 ? null : this.get(id);
  }

  get(id: string): Promise<SessionSummary | null> {
    return pg("session get", async () => {
      await this.settled(id);
      const rows = (await this.sql.unsafe(`${SUMMARY} WHERE s.id = $1`, [id])) as SessionRow[];
      return rows[0] ? toSummary(rows[0]) : null;
    });
  }

  /** One statement: the row inserted now, or the existing one. */
  async ensure(id: string, channel: string): Promise<SessionSummary> {
    validateSessionId(id);
    await pg("session create", async () => this.settled(id));
    const now = new Date().toISOString();
    const rows = (await pg("session create", () =>
      this.sql.unsafe(
        `WITH ins AS (INSERT INTO sessions (id, title, channel, created_at, updated_at) VALUES ($1, '', $2, $3, $3)
           ON CONFLICT (id) DO NOTHING RETURNING ${COLUMNS})
         SELECT * FROM ins
         UNION ALL
         ${SUMMARY} WHERE s.id = $1 AND NOT EXISTS (SELECT 1 FROM ins)`,
        [id, channel, now],
      ),
    )) as SessionRow[];
    return toSummary(rows[0]!);
  }

  messages(id: string, limit = 1000): Promise<StoredMessage[]> {
    return pg("session messages", async () => {
      await this.settled(id);
      return ((await this.sql.unsafe(RECENT_MESSAGES, [id, limit])) as MessageRow[]).map(toStored);
    });
  }

  allMessages(id: string): Promise<StoredMessage[]> {
    return pg("session messages", async () => {
      await this.settled(id);
      return ((await this.sql.unsafe("SELECT * FROM session_messages WHERE session_id = $1 ORDER BY seq", [id])) as MessageRow[]).map(toStored);
    });
  }

  count(): Promise<number> {
    return pg("session count", async () => {
      await this.settledAll();
      return Number(((await this.sql.unsafe("SELECT count(*) AS n FROM sessions")) as Array<{ n: number | string }>)[0]?.n ?? 0);
    });
  }

  ids(): Promise<string[]> {
    return pg("session ids", async () => {
      await this.settledAll();
      return ((await this.sql.unsafe("SELECT id FROM sessions ORDER BY updated_at DESC, id")) as Array<{ id: string }>).map((r) => r.id);
    });
  }

  delete(id: string): Promise<{ messages: number; media: number } | null> {
    this.prefetch?.drop(id);
    return pg("session delete", async () => {
      await this.settled(id);
      return this.sql.begin(async (tx) => {
        const unlinked = (await tx.unsafe("DELETE FROM session_media WHERE session_id = $1 RETURNING sha256", [id])) as Array<{ sha256: string }>;
        if (unlinked.length > 0) {
          await tx.unsafe(
            `DELETE FROM media_blobs b WHERE b.sha256 = ANY($1::text[])
               AND NOT EXISTS (SELECT 1 FROM session_media m WHERE m.sha256 = b.sha256)`,
            [`{${unlinked.map((r) => r.sha256).join(",")}}`],
          );
        }
        await tx.unsafe("DELETE FROM session_summaries WHERE session_id = $1", [id]);
        const messages = (await tx.unsafe("DELETE FROM session_messages WHERE session_id = $1", [id])).count;
        const sessions = (await tx.unsafe("DELETE FROM sessions WHERE id = $1", [id])).count;
        return sessions > 0 ? { messages, media: unlinked.length } : null;
      });
    });
  }

  /**
   * One statement (one round trip, atomic): the session row is touched (with `channel`, created when missing) and the
   * messages numbered after the last one stored. Two appends to one session racing (turns are ordered by the session
   * lease, so only a caller bypassing it) collide on the primary key; the loser runs again with a fresh snapshot.
   * The last messages of a turn holding the session's lease here (`endsTurn`) are kept instead and written by the
   * statement that ends the lease (turn-writes.ts). A turn's first write (`answering`) leaves updated_at as it was.
   */
  async append(id: string, messages: AppendedMessage[], { channel, agent = "main", endsTurn = false, answering }: AppendOptions = {}): Promise<void> {
    if (messages.length === 0) return;
    this.prefetch?.drop(id);
    const now = new Date().toISOString();
    // the statement ending the lease writes messages only: an inbox mark goes with an append of its own
    if (endsTurn && !answering && this.writes && this.prefetch?.connection(id)) return this.writes.add(id, messages, channel, agent, now);
    await this.settled(id);
    if (channel !== undefined) validateSessionId(id);
    const params: unknown[] = [id, now, titleFrom(messages)];
    if (channel !== undefined) params.push(channel, agent);
    const values = messages.map((m, i) => {
      const b = params.length;
      const usage = m.usage ? JSON.stringify(m.usage) : null;
      params.push(i + 1, m.role, m.content, m.tool_calls?.length ? JSON.stringify(m.tool_calls) : null, m.tool_call_id ?? null, m.name ?? null, mediaColumn(m), usage);
      return `($${b + 1}::int, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, $${b + 8})`;
    });
    // a turn's first write (its user message) leaves updated_at to the turn's last write
    const touched = answering && !endsTurn ? "" : "updated_at = $2, ";
    const touch =
      channel === undefined
        ? `UPDATE sessions SET ${touched}title = CASE WHEN title = '' AND $3 <> '' THEN $3 ELSE title END WHERE id = $1`
        : `INSERT INTO sessions (id, title, channel, agent, created_at, updated_at) VALUES ($1, $3, $4, $5, $2, $2)
           ON CONFLICT (id) DO UPDATE SET ${touched}
             title = CASE WHEN sessions.title = '' AND $3 <> '' THEN $3 ELSE sessions.title END`;
    const hashes = mediaHashes(messages);
    /** The statements beside the insert: the media links, the inbox mark. */
    let beside = "";
    if (hashes.length > 0) {
      params.push(`{${hashes.join(",")}}`);
      beside = `, linked AS (INSERT INTO session_media (session_id, sha256) SELECT $1, unnest($${params.length}::text[])
        ON CONFLICT DO NOTHING)`;
    }
    if (answering) {
      params.push(answering.channel, answering.messageId);
      // the mark's message is the write's first (its user message): numbered base.seq + 1
      beside += `, started AS (UPDATE channel_inbox SET state = 'started', started_seq = (SELECT seq + 1 FROM base)
        WHERE channel = $${params.length - 1} AND message_id = $${params.length} AND state = 'received')`;
    }
    const text = `WITH touched AS (${touch} RETURNING id),
      base AS (SELECT COALESCE(MAX(seq), 0) AS seq FROM session_messages WHERE session_id = $1)${beside}
      INSERT INTO session_messages (session_id, seq, role, content, tool_calls, tool_call_id, name, media, usage, created_at)
      SELECT $1, base.seq + v.n, v.role, v.content, v.tool_calls, v.tool_call_id, v.name, v.media, v.usage, $2
      FROM base, (VALUES ${values.join(", ")}) AS v(n, role, content, tool_calls, tool_call_id, name, media, usage)
      ORDER BY v.n`;
    for (let attempt = 1; ; attempt++) {
      try {
        await (this.prefetch?.connection(id) ?? this.sql).unsafe(text, params);
        return;
      } catch (cause) {
        if (attempt < APPEND_RACE_RETRIES && isUniqueViolation(cause)) continue;
        throw pgFailure("session append", cause);
      }
    }
  }

  async history(id: string, limit: number, turnAt?: number): Promise<ChatMessage[]> {
    const kept = this.prefetch?.take(id, limit);
    if (turnAt !== undefined) {
      // a turn run again reads the history that ends with its own messages, not the lease's (the session's last ones)
      const rows = (await pg("session history", async () => {
        await this.settled(id);
        return this.sql.unsafe(HISTORY_AT, [id, limit, turnAt]);
      })) as HistoryRow[];
      return historyFrom(rows.map(toHistoryEntry));
    }
    const rows =
      kept ??
      ((await pg("session history", async () => {
        await this.settled(id);
        return this.sql.unsafe(HISTORY_MESSAGES, [id, limit]);
      })) as HistoryRow[]);
    return historyFrom(rows.map(toHistoryEntry));
  }

  summary(id: string): Promise<ConversationSummary | null> {
    const kept = this.prefetch?.takeSummary(id);
    if (kept !== undefined) return Promise.resolve(kept && toConversationSummary(kept));
    return pg("session summary", async () => {
      await this.settled(id);
      const rows = (await this.sql.unsafe(NEWEST_SUMMARY, [id])) as SummaryRow[];
      return rows[0] ? toConversationSummary(rows[0]) : null;
    });
  }

  summaries(id: string): Promise<ConversationSummary[]> {
    return pg("session summaries", async () => {
      await this.settled(id);
      return ((await this.sql.unsafe("SELECT * FROM session_summaries WHERE session_id = $1 ORDER BY through_seq", [id])) as SummaryRow[]).map(
        toConversationSummary,
      );
    });
  }

  async addSummary(id: string, s: NewConversationSummary): Promise<void> {
    this.prefetch?.drop(id);
    await pg("session summary", async () => {
      await this.settled(id);
      return this.sql.unsafe(
        `INSERT INTO session_summaries (session_id, through_seq, from_seq, content, model, created_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (session_id, through_seq) DO UPDATE SET from_seq = EXCLUDED.from_seq, content = EXCLUDED.content,
           model = EXCLUDED.model, created_at = EXCLUDED.created_at`,
        [id, s.throughSeq, s.fromSeq, s.content, s.model, new Date().toISOString()],
      );
    });
  }
}
