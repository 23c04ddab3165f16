import type { Database } from "bun:sqlite";
import { statement } from "./statements.ts";

const localWrites = new WeakMap<Database, Map<string, number>>();

/** Record a commit through `db` that changes `table` (what `PRAGMA data_version` cannot see). */
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
 * A cache stamp: equal stamps mean neither another connection nor `db` itself changed `table` in between.
 * `PRAGMA data_version` changes when another connection (another process, or another connection of this one) has
 * committed, and leaves `db`'s own commits out, so `db`'s own commits to other tables (a stored response, a session
 * message) leave the stamps of cached tables as they were; its writes of `table` are counted with noteLocalWrite().
 * The statement is read at every call: reading the WAL-index header from a mapping of the `-shm` file instead would
 * open and close that file in this process, which drops SQLite's POSIX locks on it (a close drops every lock the
 * process holds on the file), so the next process to open the database could truncate the file under the mapping.
 * A gateway reads the stamp twice a turn: the statement is kept per database (statements.ts), since `db.query`'s own
 * cache cost more than running it (0.4 against 0.1 us back to back, ~6 against ~10 us once per millisecond).
 */
export function changeStamp(db: Database, table: string): string {
  const version = statement<{ data_version: number }, []>(db, "PRAGMA data_version").get()!.data_version;
  return `${version}:${localWriteCount(db, table)}`;
}
