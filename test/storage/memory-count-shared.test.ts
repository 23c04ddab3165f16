import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteMemory } from "../../src/memory/sqlite.ts";
import { SqliteMemoryStore } from "../../src/storage/sqlite/memory.ts";

/** Two connections to one WAL database: `other` plays another process. */
const dirs: string[] = [];
function pair(): { db: Database; other: Database; close(): void } {
  const dir = mkdtempSync(join(tmpdir(), "prx-count-"));
  dirs.push(dir);
  const db = new Database(join(dir, "prx.db"));
  db.exec("PRAGMA journal_mode = WAL");
  const other = new Database(join(dir, "prx.db"));
  return { db, other, close: () => (other.close(), db.close()) };
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("SqliteMemory's entry count (a row the triggers keep)", () => {
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

  test("sees a forget by another connection at the next recall", async () => {
    const { db, other, close } = pair();
    const reader = new SqliteMemory(() => new SqliteMemoryStore(db));
    await reader.store("fruit", "apples are red", "fact");
    expect((await reader.recall("apples", 5)).map((e) => e.key)).toEqual(["fruit"]);
    expect(await new SqliteMemory(() => new SqliteMemoryStore(other)).forget("fruit")).toBe(true);
    expect(await reader.count()).toBe(0);
    expect(await reader.recall("apples", 5)).toEqual([]);
    close();
  });
});
