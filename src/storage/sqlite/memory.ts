import type { Database } from "bun:sqlite";
import { newId } from "../../core/ids.ts";
import type {
  MemoryRecordRow,
  MemoryRow,
  MemoryScope,
  MemoryStore,
  MemoryUpsert,
  WeightedTerm,
} from "../types.ts";
import { changeStamp, noteLocalWrite } from "./data-version.ts";
import { ftsPhrase, orOfTerms } from "./fts.ts";
import { ensureMemorySchema } from "./memory-schema.ts";

/** Columns every entry-returning statement selects, with `m` the memories table. */
const MEMORY_COLUMNS = "m.id, m.key, m.content, m.category, m.session_id, m.updated_at, m.private";
const RECORD_COLUMNS = "seq, key, content, category, session_id, created_at, updated_at, private";
const IN_SESSION = "(m.session_id = $session OR m.session_id IS NULL)";
const NOT_PRIVATE = "m.private = 0";

const recent = (where: string) =>
  `SELECT ${MEMORY_COLUMNS} FROM memories m ${where} ORDER BY m.updated_at DESC, m.seq DESC LIMIT $limit`;

/** SQL of every statement, prepared on first use (bun:sqlite's query() caches them): opening a store stays cheap. */
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
  termDocs: "SELECT count(*) AS n FROM (SELECT rowid FROM memories_fts WHERE memories_fts MATCH $match LIMIT $cap)",
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
 * A ranked search over `terms` weighted terms: an entry's raw score is the sum of the weights of the terms it
 * holds (one membership test per term, each a subquery SQLite evaluates once into a lookup table), then BM25
 * breaks ties. Statements are cached per shape by bun:sqlite.
 */
function rankedSql(terms: number, session: boolean, includePrivate: boolean): string {
  const parts: string[] = [];
  for (let i = 0; i < terms; i++) {
    parts.push(
      terms === 1
        ? "$w0"
        : `CASE WHEN m.seq IN (SELECT rowid FROM memories_fts WHERE memories_fts MATCH $t${i}) THEN $w${i} ELSE 0 END`,
    );
  }
  return `SELECT ${MEMORY_COLUMNS}, (${parts.join(" + ")}) AS score, bm25(memories_fts, ${BM25_WEIGHTS}) AS rank
    FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid
    WHERE memories_fts MATCH $match ${session ? `AND ${IN_SESSION}` : ""} ${includePrivate ? "" : `AND ${NOT_PRIVATE}`}
    ORDER BY score DESC, rank ASC LIMIT $limit`;
}

/** The name local writes are noted under (data-version.ts). */
const MEMORY_TABLE = "memories";

/**
 * The memory tables (`memories`, its FTS5 index and its entry counter, see memory-schema.ts) on one connection.
 * The count is a row the triggers keep: every connection reads what every other committed, with no recount; this
 * store reads that row again only after a commit (data-version.ts), so a turn's recall usually reads nothing for it.
 */
export class SqliteMemoryStore implements MemoryStore {
  private counted: { stamp: string; entries: number } | undefined;

  constructor(private readonly db: Database) {
    ensureMemorySchema(db);
  }

  upsert(entry: MemoryUpsert): void {
    noteLocalWrite(this.db, MEMORY_TABLE);
    this.db.query(SQL.upsert).run({
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
    const sql = scope.sessionId
      ? scope.includePrivate
        ? SQL.recent.session
        : SQL.recent.sessionPublic
      : scope.includePrivate
        ? SQL.recent.all
        : SQL.recent.public;
    const params: Record<string, string | number> = { limit };
    if (scope.sessionId) params.session = scope.sessionId;
    return this.db.query<MemoryRow, Record<string, string | number>>(sql).all(params);
  }

  byKey(key: string): MemoryRow | null {
    return this.db.query<MemoryRow, { key: string }>(SQL.byKey).get({ key });
  }

  deleteKey(key: string): boolean {
    noteLocalWrite(this.db, MEMORY_TABLE);
    return this.db.query(SQL.deleteKey).run({ key }).changes > 0;
  }

  count(): number {
    // inside a transaction the count may include writes a rollback takes back: read, do not keep
    if (this.db.inTransaction) return this.db.query<{ n: number }, []>(SQL.countAll).get()?.n ?? 0;
    const stamp = changeStamp(this.db, MEMORY_TABLE);
    if (this.counted?.stamp === stamp) return this.counted.entries;
    const entries = this.db.query<{ n: number }, []>(SQL.countAll).get()?.n ?? 0;
    this.counted = { stamp, entries };
    return entries;
  }

  ping(): void {
    this.db.query(SQL.ping).all();
  }

  termDocs(term: string, cap: number): number {
    return this.db.query<{ n: number }, { match: string; cap: number }>(SQL.termDocs).get({ match: ftsPhrase(term), cap })?.n ?? 0;
  }

  ranked(terms: WeightedTerm[], scope: MemoryScope & { limit: number }): Array<MemoryRow & { score: number }> {
    if (terms.length === 0) return [];
    const params: Record<string, string | number> = {
      match: orOfTerms(terms.map(({ term }) => term)),
      limit: scope.limit,
    };
    terms.forEach(({ term, weight }, i) => {
      params[`w${i}`] = weight;
      if (terms.length > 1) params[`t${i}`] = ftsPhrase(term);
    });
    if (scope.sessionId) params.session = scope.sessionId;
    const sql = rankedSql(terms.length, Boolean(scope.sessionId), scope.includePrivate);
    const rows = this.db.query<MemoryRow & { score: number; rank: number }, Record<string, string | number>>(sql).all(params);
    return rows.map(({ rank: _rank, ...row }) => row);
  }

  list(options: { limit: number; offset: number; category?: string }): { rows: MemoryRow[]; total: number } {
    const { limit, offset, category } = options;
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
  }

  page(afterSeq: number, limit: number): MemoryRecordRow[] {
    return this.db.query<MemoryRecordRow, { after: number; limit: number }>(SQL.page).all({ after: afterSeq, limit });
  }

  importRecords(records: Array<Omit<MemoryRecordRow, "seq">>): { created: number; replaced: number } {
    const exists = this.db.query<{ one: number }, { key: string }>(SQL.exists);
    const upsert = this.db.query(SQL.importUpsert);
    const outcome = { created: 0, replaced: 0 };
    noteLocalWrite(this.db, MEMORY_TABLE);
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
    })();
    return outcome;
  }

  forgetSession(sessionId: string): number {
    noteLocalWrite(this.db, MEMORY_TABLE);
    return this.db.query(SQL.forgetSession).run({ session: sessionId }).changes;
  }
}
