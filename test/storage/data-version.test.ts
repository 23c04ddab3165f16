import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  changeStamp,
  DATA_VERSION_REUSE_MS,
  dataVersion,
  localWriteCount,
  noteLocalWrite,
} from "../../src/storage/sqlite/data-version.ts";
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

describe("dataVersion", () => {
  test(`one reading serves ${DATA_VERSION_REUSE_MS} ms: just inside it is reused, at the limit it is read again`, () => {
    const { db, other, close } = pair();
    const before = dataVersion(db, 1000);
    other.exec("INSERT INTO t VALUES (1)");
    expect(dataVersion(db, 1000 + DATA_VERSION_REUSE_MS - 0.001)).toBe(before);
    const after = dataVersion(db, 1000 + DATA_VERSION_REUSE_MS);
    expect(after).not.toBe(before);
    // a clock that went backwards is not trusted to be inside the window
    other.exec("INSERT INTO t VALUES (2)");
    expect(dataVersion(db, 500)).not.toBe(after);
    close();
  });

  test("commits of the connection itself do not change it; noted local writes change the stamp", () => {
    const { db, close } = pair();
    const version = dataVersion(db, 1);
    const stamp = changeStamp(db, "t", 1);
    db.exec("INSERT INTO t VALUES (1)");
    expect(dataVersion(db, 1 + DATA_VERSION_REUSE_MS * 2)).toBe(version);
    // the connection's own commit to a table leaves the stamp as it was: only noted writes of the table move it
    const afterCommit = changeStamp(db, "t", 10);
    expect(afterCommit).toBe(stamp);
    noteLocalWrite(db, "t");
    expect(localWriteCount(db, "t")).toBe(1);
    expect(localWriteCount(db, "u")).toBe(0);
    expect(changeStamp(db, "t", 20)).not.toBe(afterCommit);
    close();
  });

  test("another connection's commit moves the stamp at once, inside the reuse window", () => {
    const { db, other, close } = pair();
    const stamp = changeStamp(db, "t", 1);
    db.exec("INSERT INTO t VALUES (1)");
    expect(changeStamp(db, "t", 1)).toBe(stamp);
    other.exec("INSERT INTO t VALUES (2)");
    const moved = changeStamp(db, "t", 1);
    expect(moved).not.toBe(stamp);
    expect(changeStamp(db, "t", 1)).toBe(moved);
    close();
  });
});

describe("SqliteMemory's empty-store shortcut", () => {
  test("sees a store through another backend on the same connection at once", async () => {
    const { db, close } = pair();
    const reader = new SqliteMemory(new SqliteMemoryStore(db));
    expect(await reader.recall("apples", 5)).toEqual([]);
    await new SqliteMemory(new SqliteMemoryStore(db)).store("fruit", "apples are red", "fact");
    expect((await reader.recall("apples", 5)).map((e) => e.key)).toEqual(["fruit"]);
    close();
  });

  test("sees a store by another connection (another process) within the reuse window", async () => {
    const { db, other, close } = pair();
    const reader = new SqliteMemory(new SqliteMemoryStore(db));
    expect(await reader.recall("apples", 5)).toEqual([]);
    await new SqliteMemory(new SqliteMemoryStore(other)).store("fruit", "apples are red", "fact");
    await Bun.sleep(DATA_VERSION_REUSE_MS + 1);
    expect((await reader.recall("apples", 5)).map((e) => e.key)).toEqual(["fruit"]);
    close();
  });
});
