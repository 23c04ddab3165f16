import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openWorkspace } from "../../src/core/workspace.ts";
import { migrateSqlite, SQLITE_MIGRATIONS } from "../../src/storage/sqlite/schema.ts";
import { ensureBinary, runPrx } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-migrate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function open(path: string): Database {
  const db = new Database(path, { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  // a write lock that has to wait fails at once
  db.exec("PRAGMA busy_timeout = 0");
  return db;
}

test("a new database gets every migration; a migrated one is opened without taking the write lock", () => {
  const path = join(dir, "a.db");
  const first = open(path);
  expect(migrateSqlite(first)).toBe(SQLITE_MIGRATIONS.length);
  const writer = open(path);
  writer.exec("BEGIN IMMEDIATE");
  try {
    const second = open(path);
    expect(migrateSqlite(second)).toBe(0);
    second.close();
  } finally {
    writer.exec("ROLLBACK");
    writer.close();
    first.close();
  }
});

test("a ledger missing a version gets that migration (and only it)", () => {
  const path = join(dir, "b.db");
  const first = open(path);
  migrateSqlite(first);
  const last = SQLITE_MIGRATIONS.at(-1)!.version;
  first.query("DELETE FROM storage_migrations WHERE version = ?").run(last);
  first.close();
  const again = open(path);
  expect(migrateSqlite(again)).toBe(1);
  expect(again.query<{ version: number }, []>("SELECT version FROM storage_migrations ORDER BY version").all().map((r) => r.version)).toEqual(
    SQLITE_MIGRATIONS.map((m) => m.version),
  );
  again.close();
});

/** A database as prx left it at schema version 4 (before kept message counts and the search index), with sessions. */
function version4Database(path: string): void {
  const db = open(path);
  db.exec("CREATE TABLE storage_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
  for (const migration of SQLITE_MIGRATIONS.filter((m) => m.version <= 4)) {
    migration.apply(db);
    db.query("INSERT INTO storage_migrations VALUES (?, ?, '2026-01-01T00:00:00.000Z')").run(migration.version, migration.name);
  }
  const session = db.query("INSERT INTO sessions (id, title, channel, created_at, updated_at) VALUES (?, ?, 'cli', ?, ?)");
  const message = db.query("INSERT INTO session_messages (session_id, seq, role, content, created_at) VALUES (?, ?, 'user', 'x', ?)");
  const sessions: Array<[string, string, number]> = [["old-three", "Three old messages", 3], ["old-none", "", 0], ["old-one", "One Old Message", 1]];
  sessions.forEach(([id, title, count], i) => {
    const at = `2026-01-0${i + 1}T00:00:00.000Z`;
    session.run(id, title, at, at);
    for (let seq = 1; seq <= count; seq++) message.run(id, seq, at);
  });
  db.close();
}

test("a database at version 4 migrates: message counts are backfilled and kept, its sessions are in the search index", () => {
  const path = join(dir, "v4.db");
  version4Database(path);
  const db = open(path);
  expect(migrateSqlite(db)).toBe(SQLITE_MIGRATIONS.filter((m) => m.version > 4).length);
  const counts = () => Object.fromEntries(db.query<{ id: string; message_count: number }, []>("SELECT id, message_count FROM sessions").all().map((r) => [r.id, r.message_count]));
  expect(counts()).toEqual({ "old-three": 3, "old-none": 0, "old-one": 1 });
  db.query("INSERT INTO session_messages (session_id, seq, role, content, created_at) VALUES ('old-none', 1, 'user', 'x', 'now')").run();
  db.query("DELETE FROM session_messages WHERE session_id = 'old-three' AND seq = 2").run();
  expect(counts()).toEqual({ "old-three": 2, "old-none": 1, "old-one": 1 });
  const found = (text: string) => db.query<{ id: string }, [string]>("SELECT id FROM sessions_search WHERE sessions_search MATCH ? ORDER BY id").all(text).map((r) => r.id);
  expect(found('"old mes"')).toEqual(["old-one", "old-three"]);
  db.query("UPDATE sessions SET title = 'Renamed' WHERE id = 'old-one'").run();
  db.query("DELETE FROM sessions WHERE id = 'old-three'").run();
  expect(found('"old mes"')).toEqual([]);
  expect(found('"renamed"')).toEqual(["old-one"]);
  db.close();
});

test("prx sessions list on a workspace made at version 4 show each session's message count", async () => {
  await ensureBinary();
  const ws = tempWorkspace();
  try {
    version4Database(openWorkspace(ws.dir).dbPath);
    const listed = await runPrx(["sessions", "list", "--json", "-w", ws.dir]);
    expect(listed.code).toBe(0);
    const sessions = JSON.parse(listed.stdout).sessions as Array<{ id: string; message_count: number }>;
    expect(sessions.map((s) => [s.id, s.message_count])).toEqual([["old-one", 1], ["old-none", 0], ["old-three", 3]]);
  } finally {
    ws.cleanup();
  }
});
