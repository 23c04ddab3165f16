import type { Database } from "bun:sqlite";
import type { SqliteStorage, Storage } from "../../src/storage/index.ts";
import { noteLocalWrite } from "../../src/storage/sqlite/data-version.ts";

/**
 * The SQLite stores of a host (or anything holding a storage) on the default backend, for tests that read or write
 * its tables directly: the same connection the host uses. A write there to a table the stores cache (memories,
 * gateway_tokens) goes through writeTable, which tells their caches as the stores' own writes do.
 */
export function sqliteStorageOf(holder: { storage: Storage }): SqliteStorage {
  const storage = holder.storage;
  if (storage.backend !== "sqlite" || !("db" in storage)) throw new Error(`expected SQLite storage, got ${storage.backend}`);
  return storage as SqliteStorage;
}

/** The connection behind a host's SQLite storage (see sqliteStorageOf). */
export function hostDb(holder: { storage: Storage }): Database {
  return sqliteStorageOf(holder).db;
}

/** Run `sql`, which changes `table`, on a host's connection, as the stores' own writes to it are noted. */
export function writeTable(holder: { storage: Storage }, table: string, sql: string): void {
  const db = hostDb(holder);
  db.exec(sql);
  noteLocalWrite(db, table);
}
