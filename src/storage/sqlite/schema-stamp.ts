import type { Database } from "bun:sqlite";
import { openedReadOnly, SQLITE_BUSY_TIMEOUT_MS } from "./database.ts";
import { ensureMemorySchema, MEMORY_SCHEMA_TEXT, memorySchemaInPlace } from "./memory-schema.ts";
import { migratedHandle, migrateSqlite, migrationsInPlace, SQLITE_MIGRATIONS } from "./schema.ts";

/**
 * The workspace database's schema as this prx makes it (every migration of schema.ts and the memory tables of
 * memory-schema.ts), as one number kept in SQLite's `user_version` header field. An open that finds it reads one
 * PRAGMA instead of the migration ledger and the memory tables' checks (the memory DDL, its columns, its triggers).
 * It is derived from the migrations' versions and the memory DDL's text, so a prx with another migration or other
 * memory tables finds another number and checks (then stamps) again; 0, SQLite's default, is never a stamp.
 */
export const SQLITE_SCHEMA_STAMP = stampOf([...SQLITE_MIGRATIONS.map((m) => `${m.version}:${m.name}`), ...MEMORY_SCHEMA_TEXT]);

function stampOf(parts: readonly string[]): number {
  // a positive 31-bit number: user_version is a signed 32-bit integer
  return (Bun.hash.crc32(parts.join("\n")) & 0x7fffffff) || 1;
}

/** True when `db` carries the current stamp; its handle is then known migrated and its memory tables in place. */
export function schemaStamped(db: Database): boolean {
  const found = db.query<{ user_version: number }, []>("PRAGMA user_version").get()?.user_version;
  if (found !== SQLITE_SCHEMA_STAMP) return false;
  migrationsInPlace(db);
  memorySchemaInPlace(db);
  return true;
}

/**
 * Why a stamp is not written now, SQLite's primary codes: another process writes, the disk is full, the file is
 * read-only. Bun reports the extended code (SQLITE_BUSY_RECOVERY, SQLITE_READONLY_DBMOVED...), matched by its prefix.
 */
const STAMP_LATER = ["SQLITE_BUSY", "SQLITE_FULL", "SQLITE_READONLY"];

export function stampLater(code: string | undefined): boolean {
  return code !== undefined && STAMP_LATER.some((primary) => code === primary || code.startsWith(`${primary}_`));
}

/**
 * Stamp `db` once this handle has run every migration and made the memory tables (migrateAndStamp); false when the
 * migrations have not run on it, or when the write cannot be made at once (STAMP_LATER): opening a migrated database
 * waits for no other process's writes, and a later open stamps it.
 */
function stampSchema(db: Database): boolean {
  if (!migratedHandle(db) || openedReadOnly(db)) return false;
  db.exec("PRAGMA busy_timeout = 0");
  try {
    db.exec(`PRAGMA user_version = ${SQLITE_SCHEMA_STAMP}`);
    return true;
  } catch (error) {
    if (stampLater((error as { code?: string }).code)) return false;
    throw error;
  } finally {
    db.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  }
}

/**
 * Bring `db` to this prx's schema (every migration, the memory tables) and stamp it. A read-only handle is only
 * migrated (which fails if a migration is due): its memory tables are checked by the memory store's first use.
 */
export function migrateAndStamp(db: Database): void {
  migrateSqlite(db);
  if (openedReadOnly(db)) return;
  ensureMemorySchema(db);
  stampSchema(db);
}
