import type { Database } from "bun:sqlite";
import { walChangeStamp } from "./wal-index.ts";

/**
 * How long one `PRAGMA data_version` reading is reused where the WAL-index header cannot be read (wal-index.ts): one
 * reading serves every request within this window instead of each paying a read transaction. A commit by another
 * process is then seen at most this late; the connection's own commits at once (noteLocalWrite).
 */
export const DATA_VERSION_REUSE_MS = 10;

interface Reading {
  version: number;
  at: number;
}

const readings = new WeakMap<Database, Reading>();
const localWrites = new WeakMap<Database, Map<string, number>>();

/**
 * A number that changes when another connection (another process, or another connection of this one) has
 * committed to `db` since the last reading more than DATA_VERSION_REUSE_MS ago. Commits of `db` itself do not
 * change it (SQLite's data_version): writers of cached tables count those with noteLocalWrite().
 */
export function dataVersion(db: Database, now: number = performance.now()): number {
  const last = readings.get(db);
  if (last && now - last.at < DATA_VERSION_REUSE_MS && now >= last.at) return last.version;
  const version = db.query<{ data_version: number }, []>("PRAGMA data_version").get()!.data_version;
  readings.set(db, { version, at: now });
  return version;
}

/** Record a commit through `db` that changes `table` (what dataVersion cannot see). */
export function noteLocalWrite(db: Database, table: string): void {
  let tables = localWrites.get(db);
  if (!tables) localWrites.set(db, (tables = new Map()));
  tables.set(table, (tables.get(table) ?? 0) + 1);
}

/** How many local writes to `table` through `db` were noted. */
export function localWriteCount(db: Database, table: string): number {
  return localWrites.get(db)?.get(table) ?? 0;
}

/**
 * A cache stamp: equal stamps mean neither another connection nor `db` itself changed `table` in between. A WAL
 * database's stamp moves with every commit, seen at once (wal-index.ts); any other's with dataVersion.
 */
export function changeStamp(db: Database, table: string, now?: number): string {
  return `${walChangeStamp(db) ?? dataVersion(db, now)}:${localWriteCount(db, table)}`;
}
