import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrateSqlite, SQLITE_MIGRATIONS } from "../../src/storage/sqlite/schema.ts";

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
