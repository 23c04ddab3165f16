import { constants as sqlite, Database } from "bun:sqlite";
import { accessSync, chmodSync, closeSync, constants, existsSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { PrxError } from "../../core/errors.ts";
import { diskFullError } from "./disk-full.ts";

/**
 * One SQLite file per workspace (data/prx.db), shared by memory, sessions, plugin KV, tokens, idempotency keys and
 * cron state. Several processes may open it at once: WAL plus a busy timeout. The storage that opens a connection owns
 * it and closes it; whoever needs the stores is handed that storage, so one process holds one connection per open.
 */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * A new connection to the SQLite file at `path` (":memory:" for a throw-away database). The WAL file goes with the
 * last connection (SQLite's default): kept (SQLITE_FCNTL_PERSIST_WAL), a process's first write would skip the WAL
 * header's and the directory's fsync, but each open reads the whole kept WAL back (recovery: ~930 reads of a 3.3 MB
 * WAL before a `prx agent -m` turn) and each close copies every page in it to the database again.
 */
export function openSqliteDatabase(path: string): Database {
  let db: Database | undefined;
  try {
    if (path !== ":memory:") ownerOnlyFile(path);
    db = new Database(path, { create: true, strict: true });
    db.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON`);
    return db;
  } catch (cause) {
    db?.close();
    if (path !== ":memory:") {
      const full = diskFullError(path, cause, `opening the database ${path}`);
      if (full) throw full;
      const readOnly = readOnlyDatabase(path);
      if (readOnly) return readOnly;
    }
    throw new PrxError("WORKSPACE", `cannot open database ${path}: ${(cause as Error).message}`, {
      cause,
      hint: "check that the workspace data directory is writable and the file is not corrupt (prx doctor)",
    });
  }
}

/** Handles readOnlyDatabase opened: nothing is written to them unasked (schema-stamp.ts). */
const readOnlyHandles = new WeakSet<Database>();

/** Whether `db` was opened read-only because its directory cannot be written (see readOnlyDatabase). */
export function openedReadOnly(db: Database): boolean {
  return readOnlyHandles.has(db);
}

/**
 * A database in a directory this process cannot write (a read-only file system or mount, a backup copy): SQLite cannot
 * make the -wal and -shm files a WAL database is read with, so it is opened as immutable, read-only. Reading works (the
 * commands that show what is stored); a write fails with SQLite's "attempt to write a readonly database". Null when
 * the directory is writable or the file is not there (the open failed for another reason).
 */
function readOnlyDatabase(path: string): Database | null {
  if (!existsSync(path)) return null;
  try {
    accessSync(dirname(path), constants.W_OK);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EROFS" && code !== "EACCES" && code !== "EPERM") return null;
  }
  try {
    const db = new Database(`file://${encodeURI(path)}?immutable=1`, sqlite.SQLITE_OPEN_READONLY | sqlite.SQLITE_OPEN_URI);
    db.query("SELECT count(*) FROM sqlite_master").get();
    readOnlyHandles.add(db);
    return db;
  } catch {
    return null;
  }
}

/**
 * The database file readable by its owner only (0600): created so before SQLite opens it (SQLite gives its -wal and
 * -shm files the database file's permissions), or tightened, with those files, when an older prx made them 0644.
 */
function ownerOnlyFile(path: string): void {
  if (!existsSync(path)) {
    closeSync(openSync(path, "a", 0o600));
    return;
  }
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (!existsSync(file)) continue;
    const stat = statSync(file);
    if ((stat.mode & 0o077) === 0 || stat.uid !== process.getuid?.()) continue;
    try {
      chmodSync(file, 0o600);
    } catch (cause) {
      // a read-only file system keeps its modes: the database is still read
      if ((cause as NodeJS.ErrnoException).code !== "EROFS") throw cause;
    }
  }
}

/** Run DDL once per connection and owner name (tables a store creates on first use, outside the migrations). */
const applied = new WeakMap<Database, Set<string>>();
export function ensureSchema(db: Database, owner: string, ddl: string): void {
  let done = applied.get(db);
  if (!done) applied.set(db, (done = new Set()));
  if (done.has(owner)) return;
  db.exec(ddl);
  done.add(owner);
}

/** SQLite's own integrity check of the file at `path`: "ok", or what it found wrong (`prx doctor`). */
export function sqliteQuickCheck(path: string): string {
  const db = openSqliteDatabase(path);
  try {
    return db.query<{ quick_check: string }, []>("PRAGMA quick_check").get()?.quick_check ?? "no answer";
  } finally {
    db.close();
  }
}
