import type { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteDatabase } from "../../src/storage/sqlite/database.ts";
import { SqliteSessionStore, SQL } from "../../src/storage/sqlite/sessions.ts";
import { keptStatementCount, statement, STATEMENTS_PER_DATABASE_MAX } from "../../src/storage/sqlite/statements.ts";

const dirs: string[] = [];
function fileDatabase(): { db: Database; path: string } {
  const dir = mkdtempSync(join(tmpdir(), "prx-stmt-"));
  dirs.push(dir);
  const path = join(dir, "prx.db");
  return { db: openSqliteDatabase(path), path };
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** More distinct statements than bun:sqlite's query cache holds (20), each run once. */
function runOthers(db: Database, count = 25): void {
  for (let i = 0; i < count; i++) db.query(`SELECT ${i} AS n`).get();
}

/** The descriptors this process holds open on `path` (its -wal and -shm files included). */
function openDescriptors(path: string): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(path);
    } catch {
      return false;
    }
  }).length;
}

describe("statement", () => {
  test("a statement stays prepared while more than 20 others run in between (db.query prepares it again)", () => {
    const db = openSqliteDatabase(":memory:");
    const sql = "SELECT 1 AS one";
    const kept = statement<{ one: number }, []>(db, sql);
    const cached = db.query(sql);
    runOthers(db);
    expect(db.query(sql)).not.toBe(cached);
    expect(statement(db, sql)).toBe(kept);
    expect(kept.get()).toEqual({ one: 1 });
    db.close();
  });

  test("a session's history read and append keep their statements through a turn of other statements", () => {
    const { db } = fileDatabase();
    const sessions = new SqliteSessionStore(db);
    sessions.append("s1", [{ role: "user", content: "hello" }], { channel: "cli" });
    expect(sessions.history("s1", 50)).toEqual([{ role: "user", content: "hello" }]);
    const history = statement(db, SQL.history);
    const insert = statement(db, SQL.insertMessage);
    const kept = keptStatementCount(db);
    runOthers(db);
    sessions.append("s1", [{ role: "assistant", content: "hi" }]);
    expect(sessions.history("s1", 50)).toEqual([
      { role: "user", content: "hello" },
      { role: "assistant", content: "hi" },
    ]);
    expect(statement(db, SQL.history)).toBe(history);
    expect(statement(db, SQL.insertMessage)).toBe(insert);
    expect(keptStatementCount(db)).toBe(kept);
    db.close();
  });

  test("each database has its own statements, run against its own data", () => {
    const a = openSqliteDatabase(":memory:");
    const b = openSqliteDatabase(":memory:");
    a.exec("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)");
    b.exec("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (2)");
    const sql = "SELECT x FROM t";
    expect(statement(a, sql)).not.toBe(statement(b, sql));
    expect(statement<{ x: number }, []>(a, sql).get()).toEqual({ x: 1 });
    expect(statement<{ x: number }, []>(b, sql).get()).toEqual({ x: 2 });
    expect(keptStatementCount(a)).toBe(1);
    expect(keptStatementCount(b)).toBe(1);
    a.close();
    b.close();
  });

  test(`keeps ${STATEMENTS_PER_DATABASE_MAX} statements per database; one past is prepared by db.query and not kept`, () => {
    const db = openSqliteDatabase(":memory:");
    const texts = Array.from({ length: STATEMENTS_PER_DATABASE_MAX + 1 }, (_, i) => `SELECT ${i} AS n`);
    const atLimit = texts.slice(0, STATEMENTS_PER_DATABASE_MAX).map((sql) => statement(db, sql));
    expect(keptStatementCount(db)).toBe(STATEMENTS_PER_DATABASE_MAX);
    expect(statement(db, texts[STATEMENTS_PER_DATABASE_MAX - 1]!)).toBe(atLimit.at(-1)!);

    const past = texts[STATEMENTS_PER_DATABASE_MAX]!;
    const overflow = statement<{ n: number }, []>(db, past);
    expect(overflow.get()).toEqual({ n: STATEMENTS_PER_DATABASE_MAX });
    expect(keptStatementCount(db)).toBe(STATEMENTS_PER_DATABASE_MAX);
    expect(overflow).toBe(db.query(past));
    runOthers(db);
    expect(statement(db, past)).not.toBe(overflow);
    expect(statement(db, texts[0]!)).toBe(atLimit[0]!);
    db.close();
  });

  test("closing the database finalizes its statements and closes the file; reopening prepares them again", () => {
    const { db, path } = fileDatabase();
    db.exec("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (7)");
    const sql = "SELECT x FROM t";
    const first = statement<{ x: number }, []>(db, sql);
    runOthers(db);
    expect(first.get()).toEqual({ x: 7 });
    expect(openDescriptors(path)).toBeGreaterThan(0);
    db.close();
    expect(first.isFinalized).toBe(true);
    expect(openDescriptors(path)).toBe(0);
    expect(() => statement(db, sql)).toThrow("Cannot use a closed database");

    const reopened = openSqliteDatabase(path);
    const again = statement<{ x: number }, []>(reopened, sql);
    expect(again).not.toBe(first);
    expect(again.get()).toEqual({ x: 7 });
    expect(keptStatementCount(reopened)).toBe(1);
    reopened.close();
  });

  test("a statement db.clearQueryCache() finalized is prepared again", () => {
    const db = openSqliteDatabase(":memory:");
    const sql = "SELECT 2 AS two";
    const first = statement(db, sql);
    db.clearQueryCache();
    expect(first.isFinalized).toBe(true);
    const again = statement<{ two: number }, []>(db, sql);
    expect(again).not.toBe(first);
    expect(again.get()).toEqual({ two: 2 });
    expect(keptStatementCount(db)).toBe(1);
    db.close();
  });
});
