import type { SQL } from "bun";
import type { ChatMessage } from "../../contracts/chat.ts";
import { historyFrom, titleFrom, toStored, toSummary, validateSessionId, type MessageRow, type SessionRow } from "../session-history.ts";
import type { SessionStore, SessionSummary, StoredMessage } from "../types.ts";
import { pg } from "./connect.ts";

const SUMMARY =
  "SELECT s.*, (SELECT COUNT(*) FROM session_messages m WHERE m.session_id = s.id)::int AS message_count FROM sessions s";

/** Sessions and their history in PostgreSQL, shared by every replica. */
export class PgSessionStore implements SessionStore {
  constructor(private readonly sql: SQL) {}

  list(limit = 100): Promise<SessionSummary[]> {
    return pg("session list", async () =>
      ((await this.sql.unsafe(`${SUMMARY} ORDER BY s.updated_at DESC LIMIT $1`, [limit])) as SessionRow[]).map(toSummary),
    );
  }

  get(id: string): Promise<SessionSummary | null> {
    return pg("session get", async () => {
      const rows = (await this.sql.unsafe(`${SUMMARY} WHERE s.id = $1`, [id])) as SessionRow[];
      return rows[0] ? toSummary(rows[0]) : null;
    });
  }

  async ensure(id: string, channel: string): Promise<SessionSummary> {
    validateSessionId(id);
    const now = new Date().toISOString();
    await pg("session create", () =>
      this.sql.unsafe(
        "INSERT INTO sessions (id, title, channel, created_at, updated_at) VALUES ($1, '', $2, $3, $3) ON CONFLICT (id) DO NOTHING",
        [id, channel, now],
      ),
    );
    return (await this.get(id))!;
  }

  messages(id: string, limit = 1000): Promise<StoredMessage[]> {
    return pg("session messages", async () =>
      (
        (await this.sql.unsafe(
          "SELECT * FROM (SELECT * FROM session_messages WHERE session_id = $1 ORDER BY seq DESC LIMIT $2) t ORDER BY seq ASC",
          [id, limit],
        )) as MessageRow[]
      ).map(toStored),
    );
  }

  allMessages(id: string): Promise<StoredMessage[]> {
    return pg("session messages", async () =>
      ((await this.sql.unsafe("SELECT * FROM session_messages WHERE session_id = $1 ORDER BY seq", [id])) as MessageRow[]).map(toStored),
    );
  }

  ids(): Promise<string[]> {
    return pg("session ids", async () =>
      ((await this.sql.unsafe("SELECT id FROM sessions ORDER BY updated_at DESC, id")) as Array<{ id: string }>).map((r) => r.id),
    );
  }

  delete(id: string): Promise<{ messages: number } | null> {
    return pg("session delete", () =>
      this.sql.begin(async (tx) => {
        const messages = (await tx.unsafe("DELETE FROM session_messages WHERE session_id = $1", [id])).count;
        const sessions = (await tx.unsafe("DELETE FROM sessions WHERE id = $1", [id])).count;
        return sessions > 0 ? { messages } : null;
      }),
    );
  }

  /**
   * One transaction: the session row is locked first (the UPDATE), so appends to one session from several replicas
   * queue behind each other and their sequence numbers never collide.
   */
  async append(id: string, messages: ChatMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const now = new Date().toISOString();
    const title = titleFrom(messages);
    await pg("session append", () =>
      this.sql.begin(async (tx) => {
        await tx.unsafe(
          "UPDATE sessions SET updated_at = $2, title = CASE WHEN title = '' AND $3 <> '' THEN $3 ELSE title END WHERE id = $1",
          [id, now, title],
        );
        const last = (await tx.unsafe("SELECT COALESCE(MAX(seq), 0)::int AS seq FROM session_messages WHERE session_id = $1", [id]))[0]
          .seq as number;
        const params: unknown[] = [];
        const rows: string[] = [];
        messages.forEach((m, i) => {
          const b = params.length;
          rows.push(`($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, $${b + 8})`);
          params.push(
            id,
            last + i + 1,
            m.role,
            m.content,
            m.tool_calls?.length ? JSON.stringify(m.tool_calls) : null,
            m.tool_call_id ?? null,
            m.name ?? null,
            now,
          );
        });
        await tx.unsafe(
          `INSERT INTO session_messages (session_id, seq, role, content, tool_calls, tool_call_id, name, created_at) VALUES ${rows.join(", ")}`,
          params,
        );
      }),
    );
  }

  async history(id: string, limit: number): Promise<ChatMessage[]> {
    return historyFrom(await this.messages(id, limit));
  }
}
