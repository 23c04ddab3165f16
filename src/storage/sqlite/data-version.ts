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

/** The WAL-index stamp last seen through a connection, and the data_version read when it was seen. */
interface WalReading {
  wal: string;
  version: number;
}

const walReadings = new WeakMap<Database, WalReading>();

/**
 * A cache stamp: equal stamps mean neither another connection nor `db` itself changed `table` in between. A WAL
 * database's header moves with every commit of any connection, seen at once (wal-index.ts); when it moved, one
 * `PRAGMA data_version` tells whether another connection committed, so `db`'s own commits to other tables (a stored
 * response, a session message) leave the stamps of cached tables as they were. Any other database asks dataVersion.
 */
export function changeStamp(db: Database, table: string, now?: number): string {
  const wal = walChangeStamp(db);
  if (wal === null) return `${dataVersion(db, now)}:${localWriteCount(db, table)}`;
  let reading = walReadings.get(db);
  if (reading?.wal !== wal) {
    const version = db.query<{ data_version: number }, []>("PRAGMA data_version").get()!.data_version;
    walReadings.set(db, (reading = { wal, version }));
  }
  return `${reading.version}:${localWriteCount(db, table)}`;
}
