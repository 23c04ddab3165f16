/**
 * Store transactions take the write lock at their start (BEGIN IMMEDIATE). A deferred one holds a read snapshot from
 * its first read; when another process commits before its first write, SQLite cannot let it write on that snapshot and
 * fails it at once with SQLITE_BUSY ("database is locked"), without the busy timeout. The first tests make another
 * connection write from inside the store's transaction, at a point the store hands out (a record's field, the store's
 * clock): that write is refused, and the store's own transaction completes. The last ones run a store operation while
 * another thread holds the write lock and commits: the operation waits for it instead of failing.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHANNEL_PAIRING_TTL_MS } from "../../src/storage/limits.ts";
import { openSqliteDatabase } from "../../src/storage/sqlite/database.ts";
import { SqliteMemoryStore } from "../../src/storage/sqlite/memory.ts";
import { SqlitePairingStore } from "../../src/storage/sqlite/pairings.ts";
import { migrateSqlite } from "../../src/storage/sqlite/schema.ts";
import { SqliteSessionStore } from "../../src/storage/sqlite/sessions.ts";
import type { MemoryRecordRow } from "../../src/storage/types.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-write-tx-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Another process's connection to `path`: its write commits at once or fails at once (no busy timeout, so a refused
 * write does not block this thread, which holds the lock it waits for).
 */
function otherProcess(path: string): { write(): string; close(): void } {
  const db = new Database(path, { strict: true });
  db.exec("PRAGMA busy_timeout = 0; CREATE TABLE IF NOT EXISTS elsewhere (n INTEGER)");
  return {
    write() {
      try {
        db.query("INSERT INTO elsewhere (n) VALUES (1)").run();
        return "committed";
      } catch (error) {
        return (error as { code?: string }).code ?? String(error);
      }
    },
    close: () => db.close(),
  };
}

test("a memory import whose key lookup another process's commit follows still writes: that commit waits for it", () => {
  const path = join(dir, "import.db");
  const db = openSqliteDatabase(path);
  const store = new SqliteMemoryStore(db);
  const other = otherProcess(path);
  try {
    store.upsert({ key: "kept", content: "before", category: "core", sessionId: null, at: "2026-01-01T00:00:00.000Z", private: false });
    const outcomes: string[] = [];
    const record = (key: string, content: string): Omit<MemoryRecordRow, "seq"> => ({
      key,
      category: "core",
      session_id: null,
      created_at: "2026-01-02T00:00:00.000Z",
      updated_at: "2026-01-02T00:00:00.000Z",
      private: 0,
      // read for the record's write, after the import looked its key up
      get content() {
        outcomes.push(other.write());
        return content;
      },
    });
    expect(store.importRecords([record("kept", "after"), record("new", "fresh")])).toEqual({ created: 1, replaced: 1 });
    expect(outcomes).toEqual(["SQLITE_BUSY", "SQLITE_BUSY"]);
    expect([store.byKey("kept")?.content, store.byKey("new")?.content]).toEqual(["after", "fresh"]);
    // the import is committed: the other process writes again
    expect(other.write()).toBe("committed");
  } finally {
    other.close();
    db.close();
  }
});

test("a channel pairing request holds the write lock from its start: no other process commits between its reads and its write", () => {
  const path = join(dir, "pairing.db");
  const db = openSqliteDatabase(path);
  const other = otherProcess(path);
  const outcomes: string[] = [];
  let clock = 1_000;
  // the store reads its clock inside the request's transaction, before the pending codes it reads
  const store = new SqlitePairingStore(db, () => {
    outcomes.push(other.write());
    return clock;
  });
  try {
    const code = store.request("telegram", "42", "Ann");
    expect(outcomes).toEqual(["SQLITE_BUSY"]);
    // the pending code is read back (a read, then no write) the same way
    expect(store.request("telegram", "42", "Ann")).toBe(code);
    // an expired one is replaced: read, delete, insert in one transaction
    clock += CHANNEL_PAIRING_TTL_MS;
    expect(store.request("telegram", "42", "Ann")).not.toBe(code);
    expect(outcomes).toEqual(["SQLITE_BUSY", "SQLITE_BUSY", "SQLITE_BUSY"]);
    expect(other.write()).toBe("committed");
  } finally {
    other.close();
    db.close();
  }
});

/**
 * A writer on another thread that holds the write lock of `path` once this resolves and commits on its own a moment
 * later; `committed` resolves when it has.
 */
async function writerHolding(path: string): Promise<{ committed: Promise<void>; worker: Worker }> {
  const worker = new Worker(new URL("../fixtures/sqlite-writer-worker.ts", import.meta.url).href);
  const said = (word: string) =>
    new Promise<void>((resolve) => worker.addEventListener("message", (event) => event.data === word && resolve()));
  const held = said("held");
  const committed = said("committed");
  worker.postMessage({ path, holdMs: 50 });
  await held;
  return { committed, worker };
}

/** A migrated database at `path` with the table the writer writes, and a new connection to it (as a new process has). */
function freshConnection(path: string): Database {
  const setup = openSqliteDatabase(path);
  migrateSqlite(setup);
  setup.exec("CREATE TABLE IF NOT EXISTS elsewhere (n INTEGER)");
  setup.close();
  return openSqliteDatabase(path);
}

test("a process's first session waits for another process's write (FTS5 reads before the insert writes)", async () => {
  const path = join(dir, "append.db");
  const db = freshConnection(path);
  const sessions = new SqliteSessionStore(db);
  const writer = await writerHolding(path);
  try {
    // the first insert into sessions on this connection: its search trigger connects sessions_search (a read)
    sessions.append("first", [{ role: "user", content: "hello" }], { channel: "api" });
    await writer.committed;
    expect(sessions.messages("first").map((m) => m.content)).toEqual(["hello"]);
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM elsewhere").get()?.n).toBe(1);
  } finally {
    writer.worker.terminate();
    db.close();
  }
});

test("deleting a session (its media read first) waits for another process's write", async () => {
  const path = join(dir, "delete.db");
  const db = freshConnection(path);
  const sessions = new SqliteSessionStore(db);
  sessions.append("gone", [{ role: "user", content: "bye" }], { channel: "api" });
  const writer = await writerHolding(path);
  try {
    expect(sessions.delete("gone")).toEqual({ messages: 1, media: 0 });
    await writer.committed;
    expect(sessions.get("gone")).toBeNull();
  } finally {
    writer.worker.terminate();
    db.close();
  }
});
