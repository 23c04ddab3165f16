import { Database } from "bun:sqlite";
import { PrxError } from "./errors.ts";

/**
 * One SQLite file per workspace (data/prx.db), shared by memory, sessions, plugin KV, tokens,
 * idempotency keys and cron state. Several processes may open it at once: WAL plus a busy timeout.
 * Each subsystem owns its tables and creates them through `ensureSchema` when it is constructed.
 */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

const cache = new Map<string, Database>();

export function openDatabase(path: string): Database {
  const existing = cache.get(path);
  if (existing) return existing;
  let db: Database;
  try {
    db = new Database(path, { create: true, strict: true });
    db.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
  } catch (cause) {
    throw new PrxError("WORKSPACE", `cannot open database ${path}: ${(cause as Error).message}`, {
      cause,
      hint: "check that the workspace data directory is writable and the file is not corrupt (prx doctor)",
    });
  }
  cache.set(path, db);
  return db;
}

/** Close a database opened with openDatabase (gateway shutdown, tests). */
export function closeDatabase(path: string): void {
  const db = cache.get(path);
  if (!db) return;
  cache.delete(path);
  db.close();
}

/** Run DDL once per database handle and owner name. */
const applied = new WeakMap<Database, Set<string>>();
export function ensureSchema(db: Database, owner: string, ddl: string): void {
  let done = applied.get(db);
  if (!done) applied.set(db, (done = new Set()));
  if (done.has(owner)) return;
  db.exec(ddl);
  done.add(owner);
}
