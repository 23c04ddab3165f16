import type { Database, Statement } from "bun:sqlite";
import { ensureSchema } from "../core/database.ts";
import { changeStamp, noteLocalWrite } from "../core/data-version.ts";
import { PrxError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { ftsPhrase, orOfTerms, queryTerms } from "./fts-query.ts";
import { MEMORY_RANK_TERM_MAX_DOCS } from "./limits.ts";
import type { MemoryBackend, MemoryEntry } from "./types.ts";
import { validateKey, validateLimit, validateStore } from "./validate.ts";

/**
 * `memories` holds the data; `memories_fts` is an FTS5 external-content index over key, content and category,
 * kept in sync by triggers so every writer (any process sharing the workspace database) updates it.
 * `seq` is an explicit INTEGER PRIMARY KEY so VACUUM can never renumber the rowids the index points at.
 */
const DDL = `
CREATE TABLE IF NOT EXISTS memories (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  key TEXT NOT NULL UNIQUE,
  content TEXT NOT NULL,
  category TEXT NOT NULL,
  session_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS memories_updated ON memories(updated_at);
CREATE INDEX IF NOT EXISTS memories_session ON memories(session_id, updated_at);
CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
  key, content, category,
  content='memories', content_rowid='seq',
  tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS memories_ai AFTER INSERT ON memories BEGIN
  INSERT INTO memories_fts(rowid, key, content, category) VALUES (new.seq, new.key, new.content, new.category);
END;
CREATE TRIGGER IF NOT EXISTS memories_ad AFTER DELETE ON memories BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, key, content, category)
    VALUES ('delete', old.seq, old.key, old.content, old.category);
END;
CREATE TRIGGER IF NOT EXISTS memories_au AFTER UPDATE ON memories BEGIN
  INSERT INTO memories_fts(memories_fts, rowid, key, content, category)
    VALUES ('delete', old.seq, old.key, old.content, old.category);
  INSERT INTO memories_fts(rowid, key, content, category) VALUES (new.seq, new.key, new.content, new.category);
END;
`;

/** Column weights for bm25(): a hit in the key counts more than one in the content. */
const BM25_WEIGHTS = "2.0, 1.0, 0.5";
const COLUMNS = "m.id, m.key, m.content, m.category, m.session_id, m.updated_at";

interface Row {
  id: string;
  key: string;
  content: string;
  category: string;
  session_id: string | null;
  updated_at: string;
  score?: number;
}

function toEntry(row: Row): MemoryEntry {
  return {
    id: row.id,
    key: row.key,
    content: row.content,
    category: row.category,
    session_id: row.session_id,
    timestamp: row.updated_at,
    score: row.score ?? null,
  };
}

/** SQL of every statement, prepared on first use (bun:sqlite's query() caches them): opening a host stays cheap. */
const search = (sessionFilter: string, order: string) =>
  `SELECT ${COLUMNS}, -bm25(memories_fts, ${BM25_WEIGHTS}) AS score
   FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid
   WHERE memories_fts MATCH $match ${sessionFilter} ORDER BY ${order} LIMIT $limit`;
const IN_SESSION = "AND (m.session_id = $session OR m.session_id IS NULL)";
const BY_RANK = `bm25(memories_fts, ${BM25_WEIGHTS})`;
const BY_LATEST = "memories_fts.rowid DESC";
const SQL = {
  upsert: `INSERT INTO memories (id, key, content, category, session_id, created_at, updated_at)
       VALUES ($id, $key, $content, $category, $session, $now, $now)
       ON CONFLICT(key) DO UPDATE SET content = excluded.content, category = excluded.category,
         session_id = excluded.session_id, updated_at = excluded.updated_at`,
  searchAll: search("", BY_RANK),
  searchSession: search(IN_SESSION, BY_RANK),
  latestMatchAll: search("", BY_LATEST),
  latestMatchSession: search(IN_SESSION, BY_LATEST),
  termDocs: "SELECT count(*) AS n FROM (SELECT rowid FROM memories_fts WHERE memories_fts MATCH $match LIMIT $cap)",
  recentAll: `SELECT ${COLUMNS} FROM memories m ORDER BY m.updated_at DESC, m.seq DESC LIMIT $limit`,
  recentSession: `SELECT ${COLUMNS} FROM memories m WHERE m.session_id = $session OR m.session_id IS NULL
       ORDER BY m.updated_at DESC, m.seq DESC LIMIT $limit`,
  byKey: `SELECT ${COLUMNS} FROM memories m WHERE m.key = $key`,
  deleteKey: "DELETE FROM memories WHERE key = $key",
  countAll: "SELECT count(*) AS n FROM memories",
  any: "SELECT 1 AS one FROM memories LIMIT 1",
  ping: "SELECT 1 AS ok FROM memories_fts LIMIT 0",
} as const;

const MEMORIES_TABLE = "memories";

export class SqliteMemory implements MemoryBackend {
  readonly name = "sqlite";
  /** "The store was empty" as of a change stamp (core/data-version.ts): recall skips even the probe. */
  private emptyAt: string | null = null;

  constructor(private readonly db: Database) {
    try {
      ensureSchema(db, "memory", DDL);
    } catch (cause) {
      throw new PrxError("MEMORY", `cannot create the memory tables: ${(cause as Error).message}`, {
        cause,
        hint: "the SQLite build must include FTS5; check the database file with prx doctor",
      });
    }
  }

  private get upsert(): Statement {
    return this.db.query(SQL.upsert);
  }
  private get searchAll(): Statement<Row> {
    return this.db.query(SQL.searchAll);
  }
  private get searchSession(): Statement<Row> {
    return this.db.query(SQL.searchSession);
  }
  private get latestMatchAll(): Statement<Row> {
    return this.db.query(SQL.latestMatchAll);
  }
  private get latestMatchSession(): Statement<Row> {
    return this.db.query(SQL.latestMatchSession);
  }
  private get termDocs(): Statement<{ n: number }> {
    return this.db.query(SQL.termDocs);
  }
  private get recentAll(): Statement<Row> {
    return this.db.query(SQL.recentAll);
  }
  private get recentSession(): Statement<Row> {
    return this.db.query(SQL.recentSession);
  }
  private get byKey(): Statement<Row> {
    return this.db.query(SQL.byKey);
  }
  private get deleteKey(): Statement {
    return this.db.query(SQL.deleteKey);
  }
  private get countAll(): Statement<{ n: number }> {
    return this.db.query(SQL.countAll);
  }
  private get ping(): Statement<{ ok: number }> {
    return this.db.query(SQL.ping);
  }

  async store(key: string, content: string, category: string, sessionId?: string | null): Promise<void> {
    validateStore(key, content, category, sessionId);
    this.run("store", () =>
      this.upsert.run({
        id: newId("mem"),
        key,
        content,
        category,
        session: sessionId ?? null,
        now: new Date().toISOString(),
      } as Record<string, string | null>),
    );
    noteLocalWrite(this.db, MEMORIES_TABLE);
  }

  async recall(query: string, limit: number, sessionId?: string | null): Promise<MemoryEntry[]> {
    validateLimit(limit);
    const rows = this.run("recall", () => {
      if (this.isEmpty()) return [];
      const terms = queryTerms(query);
      if (terms.length === 0) {
        return sessionId ? this.recentSession.all({ session: sessionId, limit }) : this.recentAll.all({ limit });
      }
      const { rare, common } = this.splitByFrequency(terms);
      if (rare.length > 0) {
        const match = orOfTerms(rare);
        return sessionId
          ? this.searchSession.all({ match, session: sessionId, limit })
          : this.searchAll.all({ match, limit });
      }
      if (common.length === 0) return [];
      const match = orOfTerms(common);
      return sessionId
        ? this.latestMatchSession.all({ match, session: sessionId, limit })
        : this.latestMatchAll.all({ match, limit });
    });
    return rows.map(toEntry);
  }

  /**
   * Nothing to recall (a fresh workspace): one index lookup, and none at all while nothing changed since the last
   * one found the store empty.
   */
  private isEmpty(): boolean {
    const stamp = changeStamp(this.db, MEMORIES_TABLE);
    if (stamp === this.emptyAt) return true;
    const empty = this.db.query<{ one: number }, []>(SQL.any).get() === null;
    this.emptyAt = empty ? stamp : null;
    return empty;
  }

  /** Terms that match nothing are dropped; the rest are rare or common (see MEMORY_RANK_TERM_MAX_DOCS). */
  private splitByFrequency(terms: string[]): { rare: string[]; common: string[] } {
    const rare: string[] = [];
    const common: string[] = [];
    for (const term of terms) {
      const n = this.termDocs.get({ match: ftsPhrase(term), cap: MEMORY_RANK_TERM_MAX_DOCS + 1 })?.n ?? 0;
      if (n > MEMORY_RANK_TERM_MAX_DOCS) common.push(term);
      else if (n > 0) rare.push(term);
    }
    return { rare, common };
  }

  async get(key: string): Promise<MemoryEntry | null> {
    validateKey(key);
    const row = this.run("get", () => this.byKey.get({ key }));
    return row ? toEntry(row) : null;
  }

  async forget(key: string): Promise<boolean> {
    validateKey(key);
    const removed = this.run("forget", () => this.deleteKey.run({ key })).changes > 0;
    if (removed) noteLocalWrite(this.db, MEMORIES_TABLE);
    return removed;
  }

  async count(): Promise<number> {
    return this.run("count", () => this.countAll.get()?.n ?? 0);
  }

  async health(): Promise<boolean> {
    try {
      this.ping.all();
      return true;
    } catch {
      // health is a probe: a broken database is the answer "false", not an exception
      return false;
    }
  }

  private run<T>(operation: string, body: () => T): T {
    try {
      return body();
    } catch (cause) {
      throw new PrxError("MEMORY", `sqlite memory ${operation} failed: ${(cause as Error).message}`, {
        cause,
        hint: "check that the workspace database (data/prx.db) is writable and not locked by a stuck process",
      });
    }
  }
}
