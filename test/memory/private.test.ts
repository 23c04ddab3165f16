import { Database } from "bun:sqlite";
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteDatabase, openSqliteStorage } from "../../src/storage/index.ts";
import { SqliteMemoryStore } from "../../src/storage/sqlite/memory.ts";
import { PRIVATE_CATEGORY, SqliteMemory } from "../../src/memory/index.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-private-"));
const path = join(dir, "prx.db");
const storage = openSqliteStorage(path);
const db = storage.db;
const memory = new SqliteMemory(() => storage.memory);

afterAll(() => {
  void storage.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => db.exec("DELETE FROM memories"));

describe("private memories (sqlite)", () => {
  test("left out of recall unless asked for, even as the best match; get and the catalog still show them", async () => {
    await memory.store("bank_pin", "bank card PIN: 1234", "finance", null, { private: true });
    await memory.store("bank", "main bank is Monzo; the card PIN is in the password manager", "finance");
    // both hold all of "bank pin"; the private one ranks first (shorter, the terms in its key too)
    const explicit = await memory.recall("bank pin", 5, null, { includePrivate: true });
    expect(explicit.map((e) => [e.key, e.private])).toEqual([
      ["bank_pin", true],
      ["bank", false],
    ]);
    expect((await memory.recall("bank pin", 5)).map((e) => e.key)).toEqual(["bank"]);
    expect((await memory.get("bank_pin"))?.private).toBe(true);
    expect((await memory.get("bank"))?.private).toBe(false);
    expect(memory.catalog.list({ limit: 10, offset: 0 }).entries.map((e) => e.key).sort()).toEqual(["bank", "bank_pin"]);
    // the listing of recent entries (an empty query) follows the same rule
    expect((await memory.recall("", 5)).map((e) => e.key)).toEqual(["bank"]);
  });

  test(`the category "${PRIVATE_CATEGORY}" marks an entry private; storing again without the flag makes it public`, async () => {
    await memory.store("diary", "felt anxious about the review", PRIVATE_CATEGORY);
    expect((await memory.get("diary"))?.private).toBe(true);
    expect(await memory.recall("anxious review", 5)).toEqual([]);
    await memory.store("diary", "felt anxious about the review", "notes");
    expect((await memory.get("diary"))?.private).toBe(false);
    expect((await memory.recall("anxious review", 5)).map((e) => e.key)).toEqual(["diary"]);
  });
});

describe("memory schema migration", () => {
  test("a database made before the private column gets it, existing entries public and searchable", async () => {
    const oldPath = join(dir, "old.db");
    const old = new Database(oldPath, { create: true, strict: true });
    old.exec(`
      CREATE TABLE memories (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, key TEXT NOT NULL UNIQUE,
        content TEXT NOT NULL, category TEXT NOT NULL, session_id TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE VIRTUAL TABLE memories_fts USING fts5(key, content, category, content='memories', content_rowid='seq',
        tokenize='porter unicode61 remove_diacritics 2');
      CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts(rowid, key, content, category) VALUES (new.seq, new.key, new.content, new.category);
      END;
      INSERT INTO memories VALUES (1, 'mem_1', 'tz', 'lives in Lisbon', 'profile', NULL, '2025-01-01T00:00:00.000Z',
        '2025-01-01T00:00:00.000Z');`);
    old.close();
    const db2 = openSqliteDatabase(oldPath);
    try {
      const migrated = new SqliteMemory(() => new SqliteMemoryStore(db2));
      expect((await migrated.get("tz"))?.private).toBe(false);
      expect((await migrated.recall("Lisbon", 5)).map((e) => e.key)).toEqual(["tz"]);
      await migrated.store("pin", "alarm code 4821", "home", null, { private: true });
      expect((await migrated.get("pin"))?.private).toBe(true);
      // opening it again (another process, a restart) finds it migrated
      expect(() => new SqliteMemory(() => new SqliteMemoryStore(new Database(oldPath, { strict: true })))).not.toThrow();
    } finally {
      db2.close();
    }
  });
});
