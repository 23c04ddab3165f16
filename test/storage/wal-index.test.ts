import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { changeStamp } from "../../src/storage/sqlite/data-version.ts";
import { walChangeStamp } from "../../src/storage/sqlite/wal-index.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Two connections to one WAL database: `other` plays another process. */
function pair(): { db: Database; other: Database } {
  const dir = mkdtempSync(join(tmpdir(), "prx-wal-"));
  dirs.push(dir);
  const db = new Database(join(dir, "prx.db"));
  db.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER)");
  return { db, other: new Database(join(dir, "prx.db")) };
}

describe("walChangeStamp", () => {
  test("moves with every commit of any connection, at once; stays without one", () => {
    const { db, other } = pair();
    const first = walChangeStamp(db);
    expect(first).not.toBeNull();
    db.query("SELECT count(*) FROM t").get();
    expect(walChangeStamp(db)).toBe(first);
    other.exec("INSERT INTO t VALUES (1)");
    const afterOther = walChangeStamp(db);
    expect(afterOther).not.toBe(first);
    db.exec("INSERT INTO t VALUES (2)");
    expect(walChangeStamp(db)).not.toBe(afterOther);
    // a checkpoint that empties the WAL, then a commit: still a new stamp
    other.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const checkpointed = walChangeStamp(db);
    other.exec("INSERT INTO t VALUES (3)");
    expect(walChangeStamp(db)).not.toBe(checkpointed);
    other.close();
    db.close();
  });

  test("a database without a WAL index (in memory) has none: changeStamp asks PRAGMA data_version", () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE t (x INTEGER)");
    expect(walChangeStamp(db)).toBeNull();
    expect(changeStamp(db, "t")).toMatch(/^\d+:0$/);
    db.close();
  });

  test("a closed connection is refused, as a statement on it would be", () => {
    const { db, other } = pair();
    expect(walChangeStamp(db)).not.toBeNull();
    db.close();
    expect(() => walChangeStamp(db)).toThrow(/closed/);
    other.close();
  });
});
