import type { MemoryStore } from "../storage/types.ts";
import { toEntry, toRecord } from "./rows.ts";
import type { ImportOutcome, MemoryCatalog, MemoryPage, MemoryRecord } from "./types.ts";

/** Rows read per statement while exporting, so an export of any size holds one page at a time. */
export const MEMORY_EXPORT_PAGE = 500;

/** Listing, export and import of the SQLite memory store (the rows behind `prx memory` and `/api/memory`). */
export class SqliteMemoryCatalog implements MemoryCatalog {
  constructor(private readonly storeOf: () => MemoryStore) {}

  private get tables(): MemoryStore {
    return this.storeOf();
  }

  list(options: { limit: number; offset: number; category?: string }): MemoryPage {
    const { rows, total } = this.tables.list(options);
    return { entries: rows.map(toEntry), total };
  }

  *records(): Iterable<MemoryRecord> {
    let after = 0;
    for (;;) {
      const rows = this.tables.page(after, MEMORY_EXPORT_PAGE);
      for (const row of rows) yield toRecord(row);
      if (rows.length < MEMORY_EXPORT_PAGE) return;
      after = rows.at(-1)!.seq;
    }
  }

  importRecords(records: MemoryRecord[]): ImportOutcome {
    return this.tables.importRecords(records.map((record) => ({ ...record, private: record.private ? 1 : 0 })));
  }

  forgetSession(sessionId: string): number {
    return this.tables.forgetSession(sessionId);
  }
}
