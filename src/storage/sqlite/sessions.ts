import type { Database, Statement } from "bun:sqlite";
import type { ChatMessage } from "../../contracts/chat.ts";
import { historyFrom, toConversationSummary, mediaColumn, mediaHashes, renamedTitle, searchPattern, titleFrom, toHistoryEntry, toStored, toSummary, validateSessionId, type HistoryRow, type MessageRow, type SessionRow, type SummaryRow } from "../session-history.ts";
import { SESSION_SEARCH_INDEX_MAX_HITS } from "../limits.ts";
import type { AppendedMessage, AppendOptions, ConversationSummary, InboxRef, NewConversationSummary, SessionStore, SessionSummary, StoredMessage } from "../types.ts";
import { ftsPhrase, TRIGRAM_CHARS } from "./fts.ts";
import { migrateSqlite } from "./schema.ts";
import { statement } from "./statements.ts";

const COLUMNS = "s.id, s.title, s.channel, s.agent, s.created_at, s.updated_at, s.message_count";
const SUMMARY = `SELECT ${COLUMNS} FROM sessions s`;
const HISTORY_COLUMNS = "role, content, tool_calls, tool_call_id, name, media";
const MATCHES = "(lower(s.title) LIKE ?1 ESCAPE '\\' OR lower(s.id) LIKE ?1 ESCAPE '\\')";

/**
 * SQL of every statement, prepared on first use: a turn prepares only its own, and keeps them for the database
 * (statements.ts); listing, searching and deleting go through bun:sqlite's query() cache.
 */
export const SQL = {
  selectOne: `${SUMMARY} WHERE s.id = ?`,
  selectMany: `${SUMMARY} ORDER BY s.updated_at DESC LIMIT ?`,
  selectOfAgent: `${SUMMARY} WHERE s.agent = ?2 ORDER BY s.updated_at DESC LIMIT ?1`,
  searchMany: `${SUMMARY} WHERE ${MATCHES} ORDER BY s.updated_at DESC LIMIT ?2`,
  /**
   * The trigram index finds the sessions holding every trigram of the text (a superset, case-folded), the LIKE of
   * searchMany keeps exactly those it keeps; CROSS JOIN makes SQLite start from the index.
   */
  searchIndexed: `SELECT ${COLUMNS} FROM sessions_search CROSS JOIN sessions s ON s.id = sessions_search.id
       WHERE sessions_search MATCH ?3 AND ${MATCHES} ORDER BY s.updated_at DESC LIMIT ?2`,
  searchHits: "SELECT count(*) AS n FROM (SELECT 1 FROM sessions_search WHERE sessions_search MATCH ? LIMIT ?)",
  retitle: "UPDATE sessions SET title = ?2 WHERE id = ?1",
  insertSession: `INSERT OR IGNORE INTO sessions (id, title, channel, created_at, updated_at, agent) VALUES (?, '', ?, ?, ?, ?)`,
  insertMessage: `INSERT INTO session_messages (session_id, seq, role, content, tool_calls, tool_call_id, name, created_at, media, usage)
       VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM session_messages WHERE session_id = ?1), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)`,
  /** insertMessage saying the seq it gave (the user message an inbox mark goes with). */
  insertMessageSeq: `INSERT INTO session_messages (session_id, seq, role, content, tool_calls, tool_call_id, name, created_at, media, usage)
       VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM session_messages WHERE session_id = ?1), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) RETURNING seq`,
  linkMedia: "INSERT OR IGNORE INTO session_media (session_id, sha256) VALUES (?, ?)",
  sessionMedia: "SELECT sha256 FROM session_media WHERE session_id = ?",
  unlinkMedia: "DELETE FROM session_media WHERE session_id = ?",
  dropUnreferenced: `DELETE FROM media_blobs WHERE sha256 = ?1 AND NOT EXISTS (SELECT 1 FROM session_media WHERE sha256 = ?1)`,
  /**
   * The inbound message a turn answers holds its user message in the session now (SessionStore.append `answering`),
   * of seq ?3 (insertMessageSeq's; a subquery of this statement for it costs 6 µs, RETURNING 2).
   */
  inboxStarted: "UPDATE channel_inbox SET state = 'started', started_seq = ?3 WHERE channel = ?1 AND message_id = ?2 AND state = 'received'",
  touch: `UPDATE sessions SET updated_at = ?2, title = CASE WHEN title = '' AND ?3 != '' THEN ?3 ELSE title END WHERE id = ?1`,
  /**
   * A turn's first write (its user message, `answering`): the title when the session has none, and updated_at left to
   * the turn's end, so the two updated_at indexes change once a turn (5 pages written instead of 7 per channel message).
   */
  titleIfNone: "UPDATE sessions SET title = ?2 WHERE id = ?1 AND title = '' AND ?2 != ''",
  recent: `SELECT * FROM (SELECT * FROM session_messages WHERE session_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq ASC`,
  /**
   * The last messages after the newest summary (a session never compacted: after 0), with the columns a turn's history
   * reads (HistoryRow): the session id, times and usage are not made into strings.
   */
  history: `SELECT ${HISTORY_COLUMNS} FROM (SELECT seq, ${HISTORY_COLUMNS} FROM session_messages WHERE session_id = ?1
       AND seq > COALESCE((SELECT MAX(through_seq) FROM session_summaries WHERE session_id = ?1), 0)
       ORDER BY seq DESC LIMIT ?2) ORDER BY seq ASC`,
  /**
   * The history of a turn run again (?3: the seq of its user message): its last messages end before the first user
   * message written after it (another turn's), after the newest summary made before it.
   */
  historyAt: `SELECT ${HISTORY_COLUMNS} FROM (SELECT seq, ${HISTORY_COLUMNS} FROM session_messages WHERE session_id = ?1
       AND seq > COALESCE((SELECT MAX(through_seq) FROM session_summaries WHERE session_id = ?1 AND through_seq < ?3), 0)
       AND seq < COALESCE((SELECT MIN(seq) FROM session_messages WHERE session_id = ?1 AND seq > ?3 AND role = 'user'), 9007199254740991)
       ORDER BY seq DESC LIMIT ?2) ORDER BY seq ASC`,
  summary: "SELECT * FROM session_summaries WHERE session_id = ? ORDER BY through_seq DESC LIMIT 1",
  summaries: "SELECT * FROM session_summaries WHERE session_id = ? ORDER BY through_seq",
  addSummary: `INSERT INTO session_summaries (session_id, through_seq, from_seq, content, model, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id, through_seq) DO UPDATE SET from_seq = excluded.from_seq, content = excluded.content,
       model = excluded.model, created_at = excluded.created_at`,
  deleteSummaries: "DELETE FROM session_summaries WHERE session_id = ?",
  deleteMessages: "DELETE FROM session_messages WHERE session_id = ?",
  deleteSession: "DELETE FROM sessions WHERE id = ?",
  allIds: "SELECT id FROM sessions ORDER BY updated_at DESC, id",
} as const;

/** Sessions and their history in the workspace SQLite database (synchronous underneath). */
export class SqliteSessionStore implements SessionStore {
  /** The transaction of `append`, made once (bun:sqlite builds four wrappers and their properties per transaction()). */
  private readonly appendTransaction: (id: string, messages: AppendedMessage[], channel: string | undefined, agent: string, answering: InboxRef | undefined, turnStart: boolean) => void;

  constructor(private readonly db: Database) {
    migrateSqlite(db);
    this.appendTransaction = db.transaction(this.write.bind(this)).immediate;
  }

  private get selectOne(): Statement<SessionRow, [string]> {
    return statement(this.db, SQL.selectOne);
  }

  private get recent(): Statement<MessageRow, [string, number]> {
    return statement(this.db, SQL.recent);
  }

  list(limit = 100, agent?: string): SessionSummary[] {
    if (agent !== undefined) return this.db.query<SessionRow, [number, string]>(SQL.selectOfAgent).all(limit, agent).map(toSummary);
    return this.db.query<SessionRow, [number]>(SQL.selectMany).all(limit).map(toSummary);
  }

  search(text: string, limit = 100): SessionSummary[] {
    const pattern = searchPattern(text);
    const lowered = text.toLowerCase();
    // the index has no answer for fewer characters than a trigram nor for a NUL (an FTS5 syntax error; LIKE takes
    // it for the title's end), and sorting many of its hits costs more than reading sessions newest first until
    // `limit` of them match
    if ([...lowered].length >= TRIGRAM_CHARS && !lowered.includes("\0")) {
      const phrase = ftsPhrase(lowered);
      const hits = this.db.query<{ n: number }, [string, number]>(SQL.searchHits).get(phrase, SESSION_SEARCH_INDEX_MAX_HITS + 1)!.n;
      if (hits <= SESSION_SEARCH_INDEX_MAX_HITS) {
        return this.db.query<SessionRow, [string, number, string]>(SQL.searchIndexed).all(pattern, limit, phrase).map(toSummary);
      }
    }
    return this.db.query<SessionRow, [string, number]>(SQL.searchMany).all(pattern, limit).map(toSummary);
  }

  rename(id: string, title: string): SessionSummary | null {
    if (this.db.query(SQL.retitle).run(id, renamedTitle(title)).changes === 0) return null;
    return this.get(id);
  }

  get(id: string): SessionSummary | null {
    const row = this.selectOne.get(id);
    return row ? toSummary(row) : null;
  }

  ensure(id: string, channel: string): SessionSummary {
    validateSessionId(id);
    const now = new Date().toISOString();
    statement(this.db, SQL.insertSession).run(id, channel, now, now, "main");
    return this.get(id)!;
  }

  messages(id: string, limit = 1000): StoredMessage[] {
    return this.recent.all(id, limit).map(toStored);
  }

  allMessages(id: string): StoredMessage[] {
    return this.recent.all(id, -1).map(toStored);
  }

  count(): number {
    return this.db.query<{ n: number }, []>("SELECT count(*) AS n FROM sessions").get()?.n ?? 0;
  }

  ids(): string[] {
    return this.db.query<{ id: string }, []>(SQL.allIds).all().map((row) => row.id);
  }

  /** One write transaction from its start (IMMEDIATE: see SqlitePairingStore.request): it reads the media before it deletes. */
  delete(id: string): { messages: number; media: number } | null {
    return this.db.transaction(() => {
      const hashes = this.db.query<{ sha256: string }, [string]>(SQL.sessionMedia).all(id);
      this.db.query(SQL.unlinkMedia).run(id);
      const drop = this.db.query(SQL.dropUnreferenced);
      for (const { sha256 } of hashes) drop.run(sha256);
      this.db.query(SQL.deleteSummaries).run(id);
      const messages = this.db.query(SQL.deleteMessages).run(id).changes;
      return this.db.query(SQL.deleteSession).run(id).changes > 0 ? { messages, media: hashes.length } : null;
    }).immediate();
  }

  /**
   * One write transaction from its start (IMMEDIATE), though it begins with a write: the first insert into `sessions`
   * on a connection prepares its search trigger, and FTS5 connecting `sessions_search` reads the index's settings,
   * inside the transaction, before the insert writes (see SqlitePairingStore.request for what a read first costs).
   * A turn's first write (`answering`, not `endsTurn`) leaves updated_at as it was: the session is touched by the
   * turn's last write, as when a turn wrote everything at its end.
   */
  append(id: string, messages: AppendedMessage[], { channel, agent = "main", endsTurn = false, answering }: AppendOptions = {}): void {
    if (messages.length === 0) return;
    if (channel !== undefined) validateSessionId(id);
    this.appendTransaction(id, messages, channel, agent, answering, answering !== undefined && !endsTurn);
  }

  private write(id: string, messages: AppendedMessage[], channel: string | undefined, agent: string, answering: InboxRef | undefined, turnStart: boolean): void {
    const now = new Date().toISOString();
    if (channel !== undefined) statement(this.db, SQL.insertSession).run(id, channel, now, now, agent);
    const insert = statement(this.db, SQL.insertMessage);
    // the first message of a write with an inbox mark (its user message) says its seq, which the mark records
    let startedSeq = 0;
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      const toolCalls = m.tool_calls?.length ? JSON.stringify(m.tool_calls) : null;
      const media = m.media ? mediaColumn(m) : null;
      const usage = m.usage ? JSON.stringify(m.usage) : null;
      if (answering && i === 0) {
        const seqOf = statement<{ seq: number }, [string, string, string, string | null, string | null, string | null, string, string | null, string | null]>(this.db, SQL.insertMessageSeq);
        startedSeq = seqOf.get(id, m.role, m.content, toolCalls, m.tool_call_id ?? null, m.name ?? null, now, media, usage)!.seq;
      } else insert.run(id, m.role, m.content, toolCalls, m.tool_call_id ?? null, m.name ?? null, now, media, usage);
    }
    for (const sha256 of mediaHashes(messages)) statement(this.db, SQL.linkMedia).run(id, sha256);
    if (turnStart) statement(this.db, SQL.titleIfNone).run(id, titleFrom(messages));
    else statement(this.db, SQL.touch).run(id, now, titleFrom(messages));
    if (answering) statement(this.db, SQL.inboxStarted).run(answering.channel, answering.messageId, startedSeq);
  }

  history(id: string, limit: number, turnAt?: number): ChatMessage[] {
    const rows =
      turnAt === undefined
        ? statement<HistoryRow, [string, number]>(this.db, SQL.history).all(id, limit)
        : statement<HistoryRow, [string, number, number]>(this.db, SQL.historyAt).all(id, limit, turnAt);
    return historyFrom(rows.map(toHistoryEntry));
  }

  summary(id: string): ConversationSummary | null {
    const row = statement<SummaryRow, [string]>(this.db, SQL.summary).get(id);
    return row ? toConversationSummary(row) : null;
  }

  summaries(id: string): ConversationSummary[] {
    return this.db.query<SummaryRow, [string]>(SQL.summaries).all(id).map(toConversationSummary);
  }

  addSummary(id: string, s: NewConversationSummary): void {
    statement(this.db, SQL.addSummary).run(id, s.throughSeq, s.fromSeq, s.content, s.model, new Date().toISOString());
  }
}
