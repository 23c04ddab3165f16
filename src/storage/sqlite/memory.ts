import type { Database } from "bun:sqlite";
import { newId } from "../../core/ids.ts";
import type {
  MemoryKeyScope,
  MemoryRecordRow,
  MemoryRow,
  MemoryScope,
  MemoryStore,
  MemoryUpsert,
} from "../types.ts";
import { ftsPhrase, orOfTerms } from "./fts.ts";
import { ensureMemorySchema } from "./memory-schema.ts";
import { keyConditions } from "./memory-keys.ts";
import { statement } from "./statements.ts";

/** Columns every entry-returning statement selects, with `m` the memories table. */
const MEMORY_COLUMNS = "m.id, m.key, m.content, m.category, m.session_id, m.updated_at, m.private";
const RECORD_COLUMNS = "seq, key, content, category, session_id, created_at, updated_at, private";
const IN_SESSION = "(m.session_id = $session OR m.session_id IS NULL)";
const NOT_PRIVATE = "m.private = 0";
const recent = (where: string) =>
  `SELECT ${MEMORY_COLUMNS} FROM memories m ${where} ORDER BY m.updated_at DESC, m.seq DESC LIMIT $limit`;

/** SQL of every statement, prepared on first use (a turn's kept per database, statements.ts): opening a store stays cheap. */
const SQL = {
  upsert: `INSERT INTO memories (id, key, content, category, session_id, created_at, updated_at, private)
       VALUES ($id, $key, $content, $category, $session, $now, $now, $private)
       ON CONFLICT(key) DO UPDATE SET content = excluded.content, category = excluded.category,
         session_id = excluded.session_id, updated_at = excluded.updated_at, private = excluded.private`,
  recent: {
    all: recent(""),
    public: recent(`WHERE ${NOT_PRIVATE}`),
    session: recent(`WHERE ${IN_SESSION}`),
    sessionPublic: recent(`WHERE ${IN_SESSION} AND ${NOT_PRIVATE}`),
  },
  byKey: `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.key = $key`,
  deleteKey: "DELETE FROM memories WHERE key = $key",
  countAll: "SELECT entries AS n FROM memory_stats WHERE one = 1",
  countCategory: "SELECT count(*) AS n FROM memories WHERE category = $category",
  ping: "SELECT 1 AS ok FROM memories_fts LIMIT 0",
  termEntries: "SELECT rowid FROM memories_fts WHERE memories_fts MATCH $match LIMIT $cap",
  list: `SELECT ${MEMORY_COLUMNS} FROM memories m ORDER BY m.updated_at DESC, m.seq DESC LIMIT $limit OFFSET $offset`,
  listCategory: `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.category = $category
    ORDER BY m.updated_at DESC, m.seq DESC LIMIT $limit OFFSET $offset`,
  page: `SELECT ${RECORD_COLUMNS} FROM memories WHERE seq > $after ORDER BY seq LIMIT $limit`,
  exists: "SELECT 1 AS one FROM memories WHERE key = $key",
  forgetSession: "DELETE FROM memories WHERE session_id = $session",
  importUpsert: `INSERT INTO memories (id, key, content, category, session_id, created_at, updated_at, private)
    VALUES ($id, $key, $content, $category, $session, $created, $updated, $private)
    ON CONFLICT(key) DO UPDATE SET content = excluded.content, category = excluded.category,
      session_id = excluded.session_id, created_at = excluded.created_at, updated_at = excluded.updated_at,
      private = excluded.private`,
} as const;

/** Column weights for bm25(), the tie-break between entries matching the same share of the query. */
const BM25_WEIGHTS = "2.0, 1.0, 0.5";

/**
 * BM25 over the OR of the query's terms for the entries in `$seqs` (a JSON array) only, best first, from the index
 * alone (no row read). The unary `+` keeps the rowid test out of the FTS5 index plan: FTS5 reads each term's entries
 * once and tests each against the list (with an equality constraint SQLite would re-run the full-text query, and
 * BM25's term statistics, once per listed entry).
 */
const rankSql = (limited: boolean) => `SELECT rowid AS seq FROM memories_fts
  WHERE memories_fts MATCH $match AND +rowid IN (SELECT value FROM json_each($seqs))
  ORDER BY bm25(memories_fts, ${BM25_WEIGHTS}) ${limited ? "LIMIT $limit" : ""}`;

/**
 * The rows of the entries in `$seqs` that the scope lets recall return, each found by primary key: CROSS JOIN keeps
 * the list the outer loop (left to choose, SQLite reads every global entry through the session index instead).
 */
function visibleSql(session: boolean, includePrivate: boolean, keys: readonly string[]): string {
  const where: string[] = [];
  if (session) where.push(IN_SESSION);
  if (!includePrivate) where.push(NOT_PRIVATE);
  where.push(...keys);
  return `SELECT m.seq AS seq, ${MEMORY_COLUMNS} FROM json_each($seqs) listed CROSS JOIN memories m ON m.seq = listed.value
    ${where.length ? `WHERE ${where.join(" AND ")}` : ""}`;
}

/** Ranked entries are read this many at a time (at least `limit`) until enough are visible to the scope. */
const VISIBLE_CHUNK = 32;

/**
 * The memory tables (`memories`, its FTS5 index and its entry counter, see memory-schema.ts) on one connection.
 * The count is a row the triggers keep: every connection reads what every other committed, with no recount, and
 * reading it costs one indexed row.
 */
export class SqliteMemoryStore implements MemoryStore {
  /** Made once: BEGIN (deferred, so reading takes no write lock), COMMIT, ROLLBACK on a throw; a savepoint when nested. */
  private readonly inOneTransaction: (read: () => unknown) => unknown;

  constructor(private readonly db: Database) {
    ensureMemorySchema(db);
    this.inOneTransaction = db.transaction((read: () => unknown) => read());
  }

  snapshot<T>(read: () => T): T {
    return this.inOneTransaction(read) as T;
  }

  upsert(entry: MemoryUpsert): void {
    statement(this.db, SQL.upsert).run({
      id: newId("mem"),
      key: entry.key,
      content: entry.content,
      category: entry.category,
      session: entry.sessionId,
      now: entry.at,
      private: entry.private ? 1 : 0,
    });
  }

  recent(limit: number, scope: MemoryScope): MemoryRow[] {
    const keys = keyConditions(scope.keys);
    if (keys.where.length > 0) {
      const where = [...(scope.sessionId ? [IN_SESSION] : []), ...(scope.includePrivate ? [] : [NOT_PRIVATE]), ...keys.where];
      const params: Record<string, string | number> = { limit, ...keys.params };
      if (scope.sessionId) params.session = scope.sessionId;
      return statement<MemoryRow, Record<string, string | number>>(this.db, recent(`WHERE ${where.join(" AND ")}`)).all(params);
    }
    const sql = scope.sessionId
      ? scope.includePrivate
        ? SQL.recent.session
        : SQL.recent.sessionPublic
      : scope.includePrivate
        ? SQL.recent.all
        : SQL.recent.public;
    const params: Record<string, string | number> = { limit };
    if (scope.sessionId) params.session = scope.sessionId;
    return statement<MemoryRow, Record<string, string | number>>(this.db, sql).all(params);
  }

  byKey(key: string): MemoryRow | null {
    return statement<MemoryRow, { key: string }>(this.db, SQL.byKey).get({ key });
  }

  deleteKey(key: string): boolean {
    return statement(this.db, SQL.deleteKey).run({ key }).changes > 0;
  }

  count(): number {
    return statement<{ n: number }, []>(this.db, SQL.countAll).get()?.n ?? 0;
  }

  ping(): void {
    this.db.query(SQL.ping).all();
  }

  termEntries(term: string, cap: number): number[] {
    const rows = statement<[number], { match: string; cap: number }>(this.db, SQL.termEntries).values({ match: ftsPhrase(term), cap });
    return rows.map((row) => row[0] as number);
  }

  bestOf(seqs: readonly number[], terms: readonly string[], scope: MemoryScope & { limit: number }): MemoryRow[] {
    if (seqs.length === 0 || terms.length === 0 || scope.limit <= 0) return [];
    // every entry is visible without a session, private or key filter: the index's best `limit` are the answer
    const keys = keyConditions(scope.keys);
    const filtered = Boolean(scope.sessionId) || !scope.includePrivate || keys.where.length > 0;
    const ranked = statement<{ seq: number }, Record<string, string | number>>(this.db, rankSql(!filtered))
      .all(filtered ? { match: orOfTerms(terms), seqs: JSON.stringify(seqs) } : { match: orOfTerms(terms), seqs: JSON.stringify(seqs), limit: scope.limit })
      .map((row) => row.seq);
    const visibleText = visibleSql(Boolean(scope.sessionId), scope.includePrivate, keys.where);
    const visible = statement<MemoryRow & { seq: number }, Record<string, string>>(this.db, visibleText);
    const found: MemoryRow[] = [];
    const chunk = Math.max(scope.limit, VISIBLE_CHUNK);
    for (let from = 0; from < ranked.length && found.length < scope.limit; from += chunk) {
      const part = ranked.slice(from, from + chunk);
      const params: Record<string, string> = keys.where.length ? { seqs: JSON.stringify(part), ...keys.params } : { seqs: JSON.stringify(part) };
      if (scope.sessionId) params.session = scope.sessionId;
      const rows = new Map(visible.all(params).map(({ seq, ...row }) => [seq, row]));
      for (const seq of part) {
        const row = rows.get(seq);
        if (row) found.push(row);
        if (found.length >= scope.limit) break;
      }
    }
    return found;
  }

  /** The page and its total from one snapshot: a write by another process between the two cannot make them disagree. */
  list(options: { limit: number; offset: number; category?: string }): { rows: MemoryRow[]; total: number } {
    const { limit, offset, category } = options;
    return this.snapshot(() => {
      if (category === undefined) {
        return {
          rows: this.db.query<MemoryRow, { limit: number; offset: number }>(SQL.list).all({ limit, offset }),
          total: this.count(),
        };
      }
      return {
        rows: this.db
          .query<MemoryRow, { limit: number; offset: number; category: string }>(SQL.listCategory)
          .all({ limit, offset, category }),
        total: this.db.query<{ n: number }, { category: string }>(SQL.countCategory).get({ category })?.n ?? 0,
      };
    });
  }

  page(afterSeq: number, limit: number): MemoryRecordRow[] {
    return this.db.query<MemoryRecordRow, { after: number; limit: number }>(SQL.page).all({ after: afterSeq, limit });
  }

  /** One write transaction from its start (IMMEDIATE: see SqlitePairingStore.request): it looks each key up before writing it. */
  importRecords(records: Array<Omit<MemoryRecordRow, "seq">>): { created: number; replaced: number } {
    const exists = this.db.query<{ one: number }, { key: string }>(SQL.exists);
    const upsert = this.db.query(SQL.importUpsert);
    const outcome = { created: 0, replaced: 0 };
    this.db.transaction(() => {
      for (const record of records) {
        if (exists.get({ key: record.key })) outcome.replaced++;
        else outcome.created++;
        upsert.run({
          id: newId("mem"),
          key: record.key,
          content: record.content,
          category: record.category,
          session: record.session_id,
          created: record.created_at,
          updated: record.updated_at,
          private: record.private,
        });
      }
    }).immediate();
    return outcome;
  }

  forgetSession(sessionId: string): number {
    return this.db.query(SQL.forgetSession).run({ session: sessionId }).changes;
  }
}
