import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteDatabase, openSqliteStorage, type SqliteStorage } from "../../src/storage/index.ts";
import { SqliteMemoryStore } from "../../src/storage/sqlite/memory.ts";
import { tracedDatabase } from "../helpers/traced-db.ts";
import { SqliteMemory } from "../../src/memory/index.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-memory-count-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const freshPath = () => join(dir, `prx-${++files}.db`);

const record = (key: string, content: string) => ({
  key,
  content,
  category: "core",
  session_id: null,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  private: 0,
});

describe("sqlite memory entry count", () => {
  test("is right after store, replace, forget, import and forgetSession", async () => {
    const storage = openSqliteStorage(freshPath());
    try {
      const memory = new SqliteMemory(() => storage.memory);
      expect(await memory.count()).toBe(0);
      await memory.store("a", "alpha fact", "core");
      await memory.store("b", "beta fact", "core", "s1");
      expect(await memory.count()).toBe(2);
      await memory.store("a", "alpha fact replaced", "core");
      expect(await memory.count()).toBe(2);
      expect(await memory.forget("a")).toBe(true);
      expect(await memory.forget("a")).toBe(false);
      expect(await memory.count()).toBe(1);
      expect(memory.catalog.importRecords([record("c", "gamma"), record("b", "beta again")].map((r) => ({ ...r, private: false })))).toEqual({
        created: 1,
        replaced: 1,
      });
      expect(await memory.count()).toBe(2);
      await memory.store("d", "delta", "core", "s1");
      await memory.store("e", "epsilon", "core", "s1");
      expect(await memory.count()).toBe(4);
      expect(memory.catalog.forgetSession("s1")).toBe(2);
      expect(await memory.count()).toBe(2);
      expect(memory.catalog.list({ limit: 10, offset: 0 }).total).toBe(2);
    } finally {
      await storage.close();
    }
  });

  test("one connection sees another connection's commits on the same file at once", async () => {
    const path = freshPath();
    const reader = openSqliteStorage(path);
    const writer = openSqliteStorage(path);
    try {
      const seen = new SqliteMemory(() => reader.memory);
      const other = new SqliteMemory(() => writer.memory);
      expect(await seen.count()).toBe(0);
      expect(await seen.recall("orchid", 5)).toEqual([]);
      await other.store("flower", "the orchid blooms in winter", "core");
      // the reader's first recall after the other commit finds the entry: its count is not a stale cache
      expect((await seen.recall("orchid", 5)).map((e) => e.key)).toEqual(["flower"]);
      expect(await seen.count()).toBe(1);
      writer.memory.importRecords([record("x", "one"), record("y", "two")]);
      expect(await seen.count()).toBe(3);
      await other.forget("x");
      expect(await seen.count()).toBe(2);
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  // the empty-store shortcut in recall reads the count: a write it missed would hide the entry
  const writers = [
    {
      by: "another store on the same connection",
      writer: (_path: string, reader: SqliteStorage) => ({ memory: new SqliteMemoryStore(reader.db), close: async () => {} }),
    },
    {
      by: "another connection (another process)",
      writer: (path: string, _reader: SqliteStorage) => {
        const storage = openSqliteStorage(path);
        return { memory: storage.memory, close: () => storage.close() };
      },
    },
  ];
  for (const { by, writer } of writers) {
    test(`recall sees a store and a forget by ${by} at once`, async () => {
      const path = freshPath();
      const reader = openSqliteStorage(path);
      const other = writer(path, reader);
      try {
        const seen = new SqliteMemory(() => reader.memory);
        const writes = new SqliteMemory(() => other.memory);
        expect(await seen.recall("apples", 5)).toEqual([]);
        await writes.store("fruit", "apples are red", "fact");
        expect((await seen.recall("apples", 5)).map((e) => e.key)).toEqual(["fruit"]);
        expect(await writes.forget("fruit")).toBe(true);
        expect(await seen.recall("apples", 5)).toEqual([]);
        expect(await seen.count()).toBe(0);
      } finally {
        await other.close();
        await reader.close();
      }
    });
  }

  test("a database made before the counter gets it, counted once from its rows, on open", () => {
    const path = freshPath();
    const before = openSqliteDatabase(path);
    new SqliteMemoryStore(before).importRecords([record("p", "one"), record("q", "two"), record("r", "three")]);
    before.exec("DROP TRIGGER memories_counted_ai; DROP TRIGGER memories_counted_ad; DROP TABLE memory_stats;");
    before.close();
    const after = openSqliteDatabase(path);
    try {
      const store = new SqliteMemoryStore(after);
      expect(store.count()).toBe(3);
      store.deleteKey("p");
      expect(store.count()).toBe(2);
    } finally {
      after.close();
    }
  });

  test("a recall runs no statement that scans the memories table (the count is a primary-key read)", async () => {
    const db = openSqliteDatabase(freshPath());
    try {
      // every statement the store runs, with the values it was run with
      const { db: traced, executed } = tracedDatabase(db);
      const memory = new SqliteMemory(() => new SqliteMemoryStore(traced));
      await memory.store("orchid", "the orchid blooms in winter", "core");
      await memory.store("fern", "the fern likes shade", "core");
      executed.length = 0;
      // right after a store: the moment the count used to be taken again
      const hits = await memory.recall("orchid winter", 5);
      expect(hits.map((e) => e.key)).toEqual(["orchid"]);
      expect(executed.length).toBeGreaterThan(0);
      const plans = executed.map(({ sql, params }) => ({
        sql,
        plan: db
          .query<{ detail: string }, Record<string, string | number>>(`EXPLAIN QUERY PLAN ${sql}`)
          .all(params)
          .map((row) => row.detail),
      }));
      const scans = plans.filter(({ plan }) => plan.some((detail) => /^SCAN (memories|m)\b(?! VIRTUAL)/.test(detail)));
      expect(scans).toEqual([]);
      expect(plans.some(({ plan }) => plan.some((detail) => detail.startsWith("SEARCH memory_stats USING INTEGER PRIMARY KEY")))).toBe(true);
    } finally {
      db.close();
    }
  });
});
