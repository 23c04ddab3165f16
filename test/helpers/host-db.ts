import type { Database } from "bun:sqlite";
import type { SqliteStorage, Storage } from "../../src/storage/index.ts";

/**
 * The SQLite stores of a host (or anything holding a storage) on the default backend, for tests that read or write
 * its tables directly: the same connection the host uses.
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
