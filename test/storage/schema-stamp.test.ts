import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteDatabase, sqliteStorage } from "../../src/storage/index.ts";
import { SQLITE_SCHEMA_STAMP, stampLater } from "../../src/storage/sqlite/schema-stamp.ts";
import { tracedDatabase } from "../helpers/traced-db.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-schema-stamp-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const freshPath = () => join(dir, `prx-${++files}.db`);

function userVersion(path: string): number {
  const db = openSqliteDatabase(path);
  try {
    return db.query<{ user_version: number }, []>("PRAGMA user_version").get()!.user_version;
  } finally {
    db.close();
  }
}

/** Opens the stores on `path` as a host does (the memory store with them), and closes them. */
function openStores(path: string): void {
  const db = openSqliteDatabase(path);
  void sqliteStorage(db).memory;
  db.close();
}

/** openStores on a connection that records its queries: the statements the open ran. */
function openTraced(path: string): string[] {
  const { db, executed } = tracedDatabase(openSqliteDatabase(path));
  void sqliteStorage(db).memory;
  db.close();
  return executed.map((statement) => statement.sql);
}

test("a database is stamped once migrated with its memory tables; an open of a stamped one reads only the stamp", () => {
  const path = freshPath();
  expect(SQLITE_SCHEMA_STAMP).toBeGreaterThan(0);
  openStores(path);
  expect(userVersion(path)).toBe(SQLITE_SCHEMA_STAMP);
  expect(openTraced(path)).toEqual(["PRAGMA user_version"]);
});

test("an open that never touches memory still makes the memory tables and stamps: a host makes its memory store on first use", () => {
  const path = freshPath();
  const db = openSqliteDatabase(path);
  sqliteStorage(db);
  db.close();
  expect(userVersion(path)).toBe(SQLITE_SCHEMA_STAMP);
  const check = openSqliteDatabase(path);
  try {
    expect(check.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE name = 'memories'").get()!.n).toBe(1);
  } finally {
    check.close();
  }
});

test("a database with another stamp (another prx's) is checked again: what it lacks is made, then it is stamped", () => {
  const path = freshPath();
  openStores(path);
  const older = openSqliteDatabase(path);
  older.exec("DROP TRIGGER memories_counted_ai; DROP TRIGGER memories_counted_ad; DROP TABLE memory_stats; PRAGMA user_version = 7");
  older.close();
  openStores(path);
  const db = openSqliteDatabase(path);
  try {
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'memories_counted_%'").get()!.n).toBe(2);
  } finally {
    db.close();
  }
  expect(userVersion(path)).toBe(SQLITE_SCHEMA_STAMP);
});

test("while another connection holds the write lock, the open does not fail: a later open writes the stamp", () => {
  const path = freshPath();
  openStores(path);
  const unstamp = openSqliteDatabase(path);
  unstamp.exec("PRAGMA user_version = 0");
  unstamp.close();
  const writer = openSqliteDatabase(path);
  writer.exec("BEGIN IMMEDIATE");
  try {
    openStores(path);
  } finally {
    writer.exec("ROLLBACK");
    writer.close();
  }
  expect(userVersion(path)).toBe(0);
  openStores(path);
  expect(userVersion(path)).toBe(SQLITE_SCHEMA_STAMP);
});

test("a stamp waits for a later open on SQLite's busy, full and read-only codes, extended ones included, and on no other", () => {
  for (const code of ["SQLITE_BUSY", "SQLITE_BUSY_RECOVERY", "SQLITE_BUSY_SNAPSHOT", "SQLITE_FULL", "SQLITE_READONLY_DBMOVED"])
    expect([code, stampLater(code)]).toEqual([code, true]);
  for (const code of ["SQLITE_BUSYX", "SQLITE_CORRUPT", "SQLITE_IOERR_WRITE", undefined])
    expect([code, stampLater(code)]).toEqual([code, false]);
});
