import type { SQL } from "bun";
import { newId } from "../core/ids.ts";
import { pg } from "../storage/postgres/connect.ts";
import type { MemoryPresence } from "../storage/types.ts";
import { PG_MEMORY_COLUMNS } from "./postgres-recall.ts";
import { MEMORY_EXPORT_PAGE } from "./sqlite-catalog.ts";
import type { MemoryRecordRow, MemoryRow } from "../storage/types.ts";
import { toEntry, toRecord } from "./rows.ts";
import type { ImportOutcome, MemoryCatalog, MemoryPage, MemoryRecord } from "./types.ts";

const RECORD_COLUMNS = "seq::float8 AS seq, key, content, category, session_id, created_at, updated_at, private::int AS private";

/** Listing, export and import of the PostgreSQL memory store. */
export class PgMemoryCatalog implements MemoryCatalog {
  constructor(
    private readonly sql: SQL,
    /** Told of every import (memory-presence.ts). */
    private readonly presence: MemoryPresence | null = null,
  ) {}

  list(options: { limit: number; offset: number; category?: string }): Promise<MemoryPage> {
    const { limit, offset, category } = options;
    return pg("memory list", async () => {
      const filter = category === undefined ? "" : "WHERE m.category = $3";
      const args = category === undefined ? [limit, offset] : [limit, offset, category];
      const rows = (await this.sql.unsafe(
        `SELECT ${PG_MEMORY_COLUMNS} FROM memories m ${filter} ORDER BY m.updated_at DESC, m.seq DESC LIMIT $1 OFFSET $2`,
        args,
      )) as MemoryRow[];
      const total =
        category === undefined
          ? (await this.sql.unsafe("SELECT count(*)::int AS n FROM memories"))[0].n
          : (await this.sql.unsafe("SELECT count(*)::int AS n FROM memories WHERE category = $1", [category]))[0].n;
      return { entries: rows.map(toEntry), total: total ?? 0 };
    });
  }

  async *records(): AsyncIterable<MemoryRecord> {
    let after = 0;
    for (;;) {
      const rows = (await pg("memory export", () =>
        this.sql.unsafe(`SELECT ${RECORD_COLUMNS} FROM memories WHERE seq > $1 ORDER BY seq LIMIT $2`, [after, MEMORY_EXPORT_PAGE]),
      )) as MemoryRecordRow[];
      for (const row of rows) yield toRecord(row);
      if (rows.length < MEMORY_EXPORT_PAGE) return;
      after = rows.at(-1)!.seq;
    }
  }

  importRecords(records: MemoryRecord[]): Promise<ImportOutcome> {
    return pg("memory import", async () => {
      const outcome = await this.sql.begin(async (tx) => {
        const outcome: ImportOutcome = { created: 0, replaced: 0 };
        for (const record of records) {
          const rows = await tx.unsafe(
            `INSERT INTO memories (id, key, content, category, session_id, created_at, updated_at, private)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             ON CONFLICT (key) DO UPDATE SET content = excluded.content, category = excluded.category,
               session_id = excluded.session_id, created_at = excluded.created_at, updated_at = excluded.updated_at,
               private = excluded.private
             RETURNING (xmax = 0) AS inserted`,
            [newId("mem"), record.key, record.content, record.category, record.session_id, record.created_at, record.updated_at, record.private],
          );
          if (rows[0].inserted) outcome.created++;
          else outcome.replaced++;
        }
        return outcome;
      }).finally(() => this.presence?.written());
      // fresh statistics for the term counts' plans and the store's size estimate (postgres-recall.ts)
      if (records.length > 0) await this.sql.unsafe("ANALYZE memories");
      return outcome;
    });
  }

  forgetSession(sessionId: string): Promise<number> {
    return pg("memory forget", async () => (await this.sql.unsafe("DELETE FROM memories WHERE session_id = $1", [sessionId])).count);
  }
}
