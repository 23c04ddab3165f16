import type { Database } from "bun:sqlite";
import { noteLocalWrite } from "../core/data-version.ts";
import { newId } from "../core/ids.ts";
import { MEMORY_COLUMNS, toEntry, toRecord, type MemoryRow, type RecordRow } from "./sqlite-rows.ts";
import type { ImportOutcome, MemoryCatalog, MemoryPage, MemoryRecord } from "./types.ts";

/** Rows read per statement while exporting, so an export of any size holds one page at a time. */
export const MEMORY_EXPORT_PAGE = 500;

export const MEMORIES_TABLE = "memories";

const RECORD_COLUMNS = "seq, key, content, category, session_id, created_at, updated_at, private";
const SQL = {
  list: `SELECT ${MEMORY_COLUMNS} FROM memories m ORDER BY m.updated_at DESC, m.seq DESC LIMIT $limit OFFSET $offset`,
  listCategory: `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.category = $category
    ORDER BY m.updated_at DESC, m.seq DESC LIMIT $limit OFFSET $offset`,
  total: "SELECT count(*) AS n FROM memories",
  totalCategory: "SELECT count(*) AS n FROM memories WHERE category = $category",
  page: `SELECT ${RECORD_COLUMNS} FROM memories WHERE seq > $after ORDER BY seq LIMIT $limit`,
  exists: "SELECT 1 AS one FROM memories WHERE key = $key",
  forgetSession: "DELETE FROM memories WHERE session_id = $session",
  upsert: `INSERT INTO memories (id, key, content, category, session_id, created_at, updated_at, private)
    VALUES ($id, $key, $content, $category, $session, $created, $updated, $private)
    ON CONFLICT(key) DO UPDATE SET content = excluded.content, category = excluded.category,
      session_id = excluded.session_id, created_at = excluded.created_at, updated_at = excluded.updated_at,
      private = excluded.private`,
} as const;

/** Listing, export and import of the SQLite memory store (the rows behind `prx memory` and `/api/memory`). */
export class SqliteMemoryCatalog implements MemoryCatalog {
  constructor(private readonly db: Database) {}

  list(options: { limit: number; offset: number; category?: string }): MemoryPage {
    const { limit, offset, category } = options;
    const rows =
      category === undefined
        ? this.db.query<MemoryRow, { limit: number; offset: number }>(SQL.list).all({ limit, offset })
        : this.db.query<MemoryRow, { limit: number; offset: number; category: string }>(SQL.listCategory).all({
            limit,
            offset,
            category,
          });
    const total =
      category === undefined
        ? this.db.query<{ n: number }, []>(SQL.total).get()?.n
        : this.db.query<{ n: number }, { category: string }>(SQL.totalCategory).get({ category })?.n;
    return { entries: rows.map(toEntry), total: total ?? 0 };
  }

  *records(): Iterable<MemoryRecord> {
    const page = this.db.query<RecordRow, { after: number; limit: number }>(SQL.page);
    let after = 0;
    for (;;) {
      const rows = page.all({ after, limit: MEMORY_EXPORT_PAGE });
      for (const row of rows) yield toRecord(row);
      if (rows.length < MEMORY_EXPORT_PAGE) return;
      after = rows.at(-1)!.seq;
    }
  }

  importRecords(records: MemoryRecord[]): ImportOutcome {
    const exists = this.db.query<{ one: number }, { key: string }>(SQL.exists);
    const upsert = this.db.query(SQL.upsert);
    const outcome: ImportOutcome = { created: 0, replaced: 0 };
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
          private: record.private ? 1 : 0,
        });
      }
    })();
    if (records.length > 0) noteLocalWrite(this.db, MEMORIES_TABLE);
    return outcome;
  }

  forgetSession(sessionId: string): number {
    const removed = this.db.query(SQL.forgetSession).run({ session: sessionId }).changes;
    if (removed > 0) noteLocalWrite(this.db, MEMORIES_TABLE);
    return removed;
  }
}
