import type { Database, Statement } from "bun:sqlite";
import { ensureSchema } from "../core/database.ts";
import { PrxError } from "../core/errors.ts";
import type { ChatMessage } from "../providers/types.ts";
import type { SessionStore, SessionSummary, StoredMessage } from "./types.ts";

export const SESSION_ID_MAX_BYTES = 128;
export const SESSION_TITLE_CHARS = 60;
/** Longest title a session can be given by a rename (characters). */
export const SESSION_TITLE_MAX_CHARS = 200;
/** Longest search text of a session search (characters). */
export const SESSION_SEARCH_MAX_CHARS = 200;
/** Session ids are ASCII, so characters and bytes agree. */
export const SESSION_ID_PATTERN = new RegExp(`^[A-Za-z0-9._:@-]{1,${SESSION_ID_MAX_BYTES}}$`);

const DDL = `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL DEFAULT '',
  channel TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS session_messages (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  role TEXT NOT NULL,
  content TEXT NOT NULL,
  tool_calls TEXT,
  tool_call_id TEXT,
  name TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE INDEX IF NOT EXISTS sessions_updated ON sessions(updated_at DESC);
`;

interface SessionRow {
  id: string;
  title: string;
  channel: string;
  created_at: string;
  updated_at: string;
  message_count: number;
}

interface MessageRow {
  seq: number;
  role: ChatMessage["role"];
  content: string;
  tool_calls: string | null;
  tool_call_id: string | null;
  name: string | null;
  created_at: string;
}

export function validateSessionId(id: string): string {
  if (!SESSION_ID_PATTERN.test(id)) {
    throw new PrxError(
      "BAD_REQUEST",
      `invalid session id ${JSON.stringify(id.slice(0, 40))}: use 1-${SESSION_ID_MAX_BYTES} characters from A-Z a-z 0-9 . _ : @ -`,
      { status: 400 },
    );
  }
  return id;
}

function toSummary(row: SessionRow): SessionSummary {
  return {
    id: row.id,
    title: row.title,
    channel: row.channel,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    messageCount: row.message_count,
  };
}

function toStored(row: MessageRow): StoredMessage {
  const message: StoredMessage = { seq: row.seq, role: row.role, content: row.content, createdAt: row.created_at };
  if (row.tool_calls) message.toolCalls = JSON.parse(row.tool_calls);
  if (row.tool_call_id) message.toolCallId = row.tool_call_id;
  if (row.name) message.name = row.name;
  return message;
}

/** Sessions and their history in the workspace SQLite database. */
export class SqliteSessionStore implements SessionStore {
  private readonly selectOne: Statement<SessionRow, [string]>;
  private readonly selectMany: Statement<SessionRow, [number]>;
  private readonly searchMany: Statement<SessionRow, [string, number]>;
  private readonly retitle;
  private readonly insertSession;
  private readonly insertMessage;
  private readonly touch;
  private readonly recent: Statement<MessageRow, [string, number]>;
  private readonly deleteMessages;
  private readonly deleteSession;
  private readonly allIds: Statement<{ id: string }, []>;

  constructor(private readonly db: Database) {
    ensureSchema(db, "sessions", DDL);
    const summary = `SELECT s.*, (SELECT COUNT(*) FROM session_messages m WHERE m.session_id = s.id) AS message_count FROM sessions s`;
    this.selectOne = db.query(`${summary} WHERE s.id = ?`);
    this.selectMany = db.query(`${summary} ORDER BY s.updated_at DESC LIMIT ?`);
    this.searchMany = db.query(
      `${summary} WHERE lower(s.title) LIKE ?1 ESCAPE '\\' OR lower(s.id) LIKE ?1 ESCAPE '\\' ORDER BY s.updated_at DESC LIMIT ?2`,
    );
    this.retitle = db.query("UPDATE sessions SET title = ?2 WHERE id = ?1");
    this.insertSession = db.query(
      `INSERT OR IGNORE INTO sessions (id, title, channel, created_at, updated_at) VALUES (?, '', ?, ?, ?)`,
    );
    this.insertMessage = db.query(
      `INSERT INTO session_messages (session_id, seq, role, content, tool_calls, tool_call_id, name, created_at)
       VALUES (?1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM session_messages WHERE session_id = ?1), ?2, ?3, ?4, ?5, ?6, ?7)`,
    );
    this.touch = db.query(
      `UPDATE sessions SET updated_at = ?2, title = CASE WHEN title = '' AND ?3 != '' THEN ?3 ELSE title END WHERE id = ?1`,
    );
    this.recent = db.query(
      `SELECT * FROM (SELECT * FROM session_messages WHERE session_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq ASC`,
    );
    this.deleteMessages = db.query("DELETE FROM session_messages WHERE session_id = ?");
    this.deleteSession = db.query("DELETE FROM sessions WHERE id = ?");
    this.allIds = db.query("SELECT id FROM sessions ORDER BY updated_at DESC, id");
  }

  list(limit = 100): SessionSummary[] {
    return this.selectMany.all(limit).map(toSummary);
  }

  /** Sessions whose title or id contains `text` (case-insensitive), most recently updated first. */
  search(text: string, limit = 100): SessionSummary[] {
    if (text.length > SESSION_SEARCH_MAX_CHARS) {
      throw new PrxError("BAD_REQUEST", `a session search is at most ${SESSION_SEARCH_MAX_CHARS} characters, got ${text.length}`, { status: 400 });
    }
    const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.searchMany.all(pattern, limit).map(toSummary);
  }

  /** Give a session its own title (1-SESSION_TITLE_MAX_CHARS characters); null when there is no such session. */
  rename(id: string, title: string): SessionSummary | null {
    const trimmed = title.replace(/\s+/g, " ").trim();
    if (trimmed.length === 0 || trimmed.length > SESSION_TITLE_MAX_CHARS) {
      throw new PrxError("BAD_REQUEST", `a session title is 1-${SESSION_TITLE_MAX_CHARS} characters, got ${trimmed.length}`, {
        status: 400,
        hint: "send a shorter, non-empty title",
      });
    }
    if (this.retitle.run(id, trimmed).changes === 0) return null;
    return this.get(id);
  }

  get(id: string): SessionSummary | null {
    const row = this.selectOne.get(id);
    return row ? toSummary(row) : null;
  }

  ensure(id: string, channel: string): SessionSummary {
    validateSessionId(id);
    const now = new Date().toISOString();
    this.insertSession.run(id, channel, now, now);
    return this.get(id)!;
  }

  messages(id: string, limit = 1000): StoredMessage[] {
    return this.recent.all(id, limit).map(toStored);
  }

  /** Every message of a session, oldest first (exports). */
  allMessages(id: string): StoredMessage[] {
    return this.recent.all(id, -1).map(toStored);
  }

  /** Every session id, most recently updated first (exports). */
  ids(): string[] {
    return this.allIds.all().map((row) => row.id);
  }

  /** Delete a session and all its messages in one transaction; null when there is no such session. */
  delete(id: string): { messages: number } | null {
    return this.db.transaction(() => {
      const messages = this.deleteMessages.run(id).changes;
      return this.deleteSession.run(id).changes > 0 ? { messages } : null;
    })();
  }

  /** Append messages in one transaction, so a turn's assistant tool calls and their results land together. */
  append(id: string, messages: ChatMessage[]): void {
    if (messages.length === 0) return;
    const now = new Date().toISOString();
    this.db.transaction(() => {
      for (const m of messages) {
        this.insertMessage.run(
          id,
          m.role,
          m.content,
          m.tool_calls?.length ? JSON.stringify(m.tool_calls) : null,
          m.tool_call_id ?? null,
          m.name ?? null,
          now,
        );
      }
      const firstUser = messages.find((m) => m.role === "user")?.content ?? "";
      this.touch.run(id, now, firstUser.replace(/\s+/g, " ").trim().slice(0, SESSION_TITLE_CHARS));
    })();
  }

  /**
   * History ready to send to a provider: the last `limit` messages, never starting with an orphaned tool
   * result, and without assistant tool calls whose results are missing (a crash mid-turn).
   */
  history(id: string, limit: number): ChatMessage[] {
    const rows = this.messages(id, limit);
    const out: ChatMessage[] = [];
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      if (row.role === "tool") continue; // results are emitted together with their call below
      if (row.role === "assistant" && row.toolCalls?.length) {
        const results: ChatMessage[] = [];
        let j = i + 1;
        while (j < rows.length && rows[j]!.role === "tool") {
          const r = rows[j]!;
          results.push({ role: "tool", content: r.content, tool_call_id: r.toolCallId, name: r.name });
          j++;
        }
        const answered = new Set(results.map((r) => r.tool_call_id));
        if (row.toolCalls.every((c) => answered.has(c.id))) {
          out.push({ role: "assistant", content: row.content, tool_calls: row.toolCalls }, ...results);
        } else if (row.content) {
          out.push({ role: "assistant", content: row.content });
        }
        i = j - 1;
        continue;
      }
      out.push({ role: row.role, content: row.content });
    }
    return out;
  }
}
