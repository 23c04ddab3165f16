import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { changeStamp, localWriteCount, noteLocalWrite } from "../../src/storage/sqlite/data-version.ts";
import { SqliteMemory } from "../../src/memory/sqlite.ts";
import { SqliteMemoryStore } from "../../src/storage/sqlite/memory.ts";

/** Two connections to one WAL database: `other` plays another process. */
const dirs: string[] = [];
function pair(): { db: Database; other: Database; close(): void } {
  const dir = mkdtempSync(join(tmpdir(), "prx-dv-"));
  dirs.push(dir);
  const db = new Database(join(dir, "prx.db"));
  db.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER)");
  const other = new Database(join(dir, "prx.db"));
  return { db, other, close: () => (other.close(), db.close()) };
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("changeStamp", () => {
  test("commits of the connection itself leave it; noted local writes of the table move it", () => {
    const { db, close } = pair();
    const stamp = changeStamp(db, "t");
    db.exec("INSERT INTO t VALUES (1)");
    const afterCommit = changeStamp(db, "t");
    expect(afterCommit).toBe(stamp);
    noteLocalWrite(db, "t");
    expect(localWriteCount(db, "t")).toBe(1);
    expect(localWriteCount(db, "u")).toBe(0);
    expect(changeStamp(db, "t")).not.toBe(afterCommit);
    close();
  });

  test("another connection's commit moves it at the next call", () => {
    const { db, other, close } = pair();
    const stamp = changeStamp(db, "t");
    db.exec("INSERT INTO t VALUES (1)");
    expect(changeStamp(db, "t")).toBe(stamp);
    other.exec("INSERT INTO t VALUES (2)");
    const moved = changeStamp(db, "t");
    expect(moved).not.toBe(stamp);
    expect(changeStamp(db, "t")).toBe(moved);
    close();
  });

  test("another connection's commit still moves it after more statements than db.query caches ran in between", () => {
    const { db, other, close } = pair();
    const stamp = changeStamp(db, "t");
    const cached = (Database as unknown as { MAX_QUERY_CACHE_SIZE: number }).MAX_QUERY_CACHE_SIZE;
    for (let i = 0; i <= cached; i++) db.query(`SELECT x FROM t WHERE x = ${i}`).all();
    expect(changeStamp(db, "t")).toBe(stamp);
    other.exec("INSERT INTO t VALUES (2)");
    expect(changeStamp(db, "t")).not.toBe(stamp);
    close();
  });

  test("a commit by another process moves it at the next call", async () => {
    const { db, close } = pair();
    const stamp = changeStamp(db, "t");
    // a process opening the database, writing and going away, as a channel process or `prx` command does
    const path = db.filename;
    const child = Bun.spawn([process.execPath, "-e", `const { Database } = require("bun:sqlite"); const d = new Database(${JSON.stringify(path)}); d.exec("INSERT INTO t VALUES (3)"); d.close();`], { stdout: "ignore", stderr: "pipe" });
    expect(await child.exited).toBe(0);
    expect(changeStamp(db, "t")).not.toBe(stamp);
    close();
  });
});

describe("SqliteMemory's empty-store shortcut", () => {
  test("sees a store through another backend on the same connection at once", async () => {
    const { db, close } = pair();
    const reader = new SqliteMemory(() => new SqliteMemoryStore(db));
    expect(await reader.recall("apples", 5)).toEqual([]);
    await new SqliteMemory(() => new SqliteMemoryStore(db)).store("fruit", "apples are red", "fact");
    expect((await reader.recall("apples", 5)).map((e) => e.key)).toEqual(["fruit"]);
    close();
  });

  test("sees a store by another connection (another process) at the next recall", async () => {
    const { db, other, close } = pair();
    const reader = new SqliteMemory(() => new SqliteMemoryStore(db));
    expect(await reader.recall("apples", 5)).toEqual([]);
    await new SqliteMemory(() => new SqliteMemoryStore(other)).store("fruit", "apples are red", "fact");
    expect((await reader.recall("apples", 5)).map((e) => e.key)).toEqual(["fruit"]);
    close();
  });
});
