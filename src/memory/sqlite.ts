import type { Database, Statement } from "bun:sqlite";
import { changeStamp, noteLocalWrite } from "../core/data-version.ts";
import { PrxError } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { queryTerms } from "./fts-query.ts";
import { contentTerms } from "./relevance.ts";
import { MEMORIES_TABLE, SqliteMemoryCatalog } from "./sqlite-catalog.ts";
import { planFor, rankedRecall } from "./sqlite-recall.ts";
import { MEMORY_COLUMNS, toEntry, type MemoryRow } from "./sqlite-rows.ts";
import { ensureMemorySchema } from "./sqlite-schema.ts";
import { PRIVATE_CATEGORY, type MemoryBackend, type MemoryEntry, type RecallOptions, type StoreOptions } from "./types.ts";
import { validateKey, validateLimit, validateStore } from "./validate.ts";

/** SQL of every statement, prepared on first use (bun:sqlite's query() caches them): opening a host stays cheap. */
const recent = (where: string) =>
  `SELECT ${MEMORY_COLUMNS} FROM memories m ${where} ORDER BY m.updated_at DESC, m.seq DESC LIMIT $limit`;
const SESSION = "(m.session_id = $session OR m.session_id IS NULL)";
const SQL = {
  upsert: `INSERT INTO memories (id, key, content, category, session_id, created_at, updated_at, private)
       VALUES ($id, $key, $content, $category, $session, $now, $now, $private)
       ON CONFLICT(key) DO UPDATE SET content = excluded.content, category = excluded.category,
         session_id = excluded.session_id, updated_at = excluded.updated_at, private = excluded.private`,
  recent: {
    all: recent(""),
    public: recent("WHERE m.private = 0"),
    session: recent(`WHERE ${SESSION}`),
    sessionPublic: recent(`WHERE ${SESSION} AND m.private = 0`),
  },
  byKey: `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.key = $key`,
  deleteKey: "DELETE FROM memories WHERE key = $key",
  countAll: "SELECT count(*) AS n FROM memories",
  ping: "SELECT 1 AS ok FROM memories_fts LIMIT 0",
} as const;

/** The built-in backend: SQLite with an FTS5 index (see sqlite-schema.ts), ranked and cut by relevance.ts. */
export class SqliteMemory implements MemoryBackend {
  readonly name = "sqlite";
  readonly catalog: SqliteMemoryCatalog;
  /** The number of entries as of a change stamp (core/data-version.ts): recall skips the count while nothing changed. */
  private counted: { stamp: string; n: number } | null = null;

  constructor(private readonly db: Database) {
    ensureMemorySchema(db);
    this.catalog = new SqliteMemoryCatalog(db);
  }

  private get countAll(): Statement<{ n: number }> {
    return this.db.query(SQL.countAll);
  }

  async store(
    key: string,
    content: string,
    category: string,
    sessionId?: string | null,
    options?: StoreOptions,
  ): Promise<void> {
    validateStore(key, content, category, sessionId);
    const isPrivate = options?.private === true || category === PRIVATE_CATEGORY;
    this.run("store", () =>
      this.db.query(SQL.upsert).run({
        id: newId("mem"),
        key,
        content,
        category,
        session: sessionId ?? null,
        now: new Date().toISOString(),
        private: isPrivate ? 1 : 0,
      }),
    );
    noteLocalWrite(this.db, MEMORIES_TABLE);
  }

  async recall(
    query: string,
    limit: number,
    sessionId?: string | null,
    options: RecallOptions = {},
  ): Promise<MemoryEntry[]> {
    validateLimit(limit);
    const includePrivate = options.includePrivate === true;
    const rows = this.run("recall", (): MemoryRow[] => {
      const entries = this.entries();
      if (entries === 0) return [];
      // No word at all (empty, punctuation): the most recent entries, as a listing. Only stop words: nothing.
      if (!options.relevantOnly && queryTerms(query).length === 0) return this.recent(limit, sessionId, includePrivate);
      const terms = contentTerms(query);
      if (terms.length === 0) return [];
      return rankedRecall(this.db, planFor(this.db, terms, entries), { limit, sessionId, includePrivate });
    });
    return rows.map(toEntry);
  }

  private recent(limit: number, sessionId: string | null | undefined, includePrivate: boolean): MemoryRow[] {
    const sql = sessionId
      ? includePrivate
        ? SQL.recent.session
        : SQL.recent.sessionPublic
      : includePrivate
        ? SQL.recent.all
        : SQL.recent.public;
    const params: Record<string, string | number> = { limit };
    if (sessionId) params.session = sessionId;
    return this.db.query<MemoryRow, Record<string, string | number>>(sql).all(params);
  }

  /**
   * How many entries the store holds: one count, and none at all while nothing changed since the last one (a fresh
   * workspace's empty store costs nothing per turn).
   */
  private entries(): number {
    const stamp = changeStamp(this.db, MEMORIES_TABLE);
    if (this.counted?.stamp === stamp) return this.counted.n;
    const n = this.countAll.get()?.n ?? 0;
    this.counted = { stamp, n };
    return n;
  }

  async get(key: string): Promise<MemoryEntry | null> {
    validateKey(key);
    const row = this.run("get", () => this.db.query<MemoryRow, { key: string }>(SQL.byKey).get({ key }));
    return row ? toEntry(row) : null;
  }

  async forget(key: string): Promise<boolean> {
    validateKey(key);
    const removed = this.run("forget", () => this.db.query(SQL.deleteKey).run({ key })).changes > 0;
    if (removed) noteLocalWrite(this.db, MEMORIES_TABLE);
    return removed;
  }

  async count(): Promise<number> {
    return this.run("count", () => this.countAll.get()?.n ?? 0);
  }

  async health(): Promise<boolean> {
    try {
      this.db.query(SQL.ping).all();
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
