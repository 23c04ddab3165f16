/**
 * A SQLite recall reads the entry count, each term's entries and the ranked rows in one read transaction: one snapshot
 * of the file, however many statements the query needs; so does a listing, its page and its total. Another connection
 * (another process) commits between two of them here, at a point the store hands out.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteMemory } from "../../src/memory/index.ts";
import { openSqliteStorage, type SqliteStorage } from "../../src/storage/index.ts";
import type { MemoryStore } from "../../src/storage/types.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-memory-snapshot-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const freshPath = () => join(dir, `prx-${++files}.db`);

const entry = (key: string, content: string) => ({
  key,
  content,
  category: "core",
  sessionId: null,
  at: "2026-01-01T00:00:00.000Z",
  private: false,
});

/** Two connections to one new file: `reader` is read, `writer` commits as another process would. */
async function withTwoConnections(body: (reader: SqliteStorage, writer: SqliteStorage) => Promise<void> | void): Promise<void> {
  const path = freshPath();
  const reader = openSqliteStorage(path);
  const writer = openSqliteStorage(path);
  try {
    await body(reader, writer);
  } finally {
    await reader.close();
    await writer.close();
  }
}

/** The reader's own store, with `method` running `before` (the other connection's commit) first. */
function committingBefore(store: MemoryStore, method: "termEntries" | "count", before: () => void): MemoryStore {
  const own = (store[method] as (...args: unknown[]) => unknown).bind(store);
  return Object.create(store, { [method]: { value: (...args: unknown[]) => (before(), own(...args)) } });
}

describe("sqlite memory store snapshot", () => {
  test("every read in it sees the file as at its first read; another connection's commit shows after it", async () => {
    await withTwoConnections(async (reader, writer) => {
      reader.memory.upsert(entry("a", "alpha"));
      const inside = reader.memory.snapshot(() => {
        const before = reader.memory.count();
        writer.memory.upsert(entry("b", "beta"));
        return [before, reader.memory.count(), reader.memory.byKey("b")];
      });
      expect(inside).toEqual([1, 1, null]);
      expect(reader.db.inTransaction).toBe(false);
      expect(reader.memory.count()).toBe(2);
      // without a snapshot each statement reads the file anew
      const apart = [reader.memory.count(), (writer.memory.upsert(entry("c", "gamma")), reader.memory.count())];
      expect(apart).toEqual([2, 3]);
    });
  });

  test("a body that throws: its error comes out and the connection is left outside any transaction", async () => {
    const storage = openSqliteStorage(freshPath());
    try {
      const failure = new Error("the body failed");
      expect(() =>
        storage.memory.snapshot(() => {
          storage.memory.count();
          throw failure;
        }),
      ).toThrow(failure);
      expect(storage.db.inTransaction).toBe(false);
      storage.memory.upsert(entry("a", "alpha"));
      expect(storage.memory.count()).toBe(1);
    } finally {
      await storage.close();
    }
  });

  test("inside a transaction already open it reads within that transaction, and leaves it open", async () => {
    const storage = openSqliteStorage(freshPath());
    try {
      storage.db.exec("BEGIN IMMEDIATE");
      storage.memory.upsert(entry("a", "alpha"));
      expect(storage.memory.snapshot(() => storage.memory.count())).toBe(1);
      expect(storage.db.inTransaction).toBe(true);
      storage.db.exec("COMMIT");
      expect(storage.memory.count()).toBe(1);
    } finally {
      await storage.close();
    }
  });
});

describe("sqlite memory recall", () => {
  test("reads one snapshot: an entry committed by another connection mid-recall is found by the next recall, not half-seen", async () => {
    await withTwoConnections(async (reader, writer) => {
      reader.memory.upsert(entry("first", "the orchid blooms in winter"));
      let commitsLeft = 1;
      // the other connection commits after the recall has read the count
      const store = committingBefore(reader.memory, "termEntries", () => {
        if (commitsLeft-- > 0) writer.memory.upsert(entry("second", "an orchid that blooms in spring"));
      });
      const memory = new SqliteMemory(() => store);
      expect((await memory.recall("orchid", 5)).map((e) => e.key)).toEqual(["first"]);
      expect((await memory.recall("orchid", 5)).map((e) => e.key).sort()).toEqual(["first", "second"]);
      expect(reader.db.inTransaction).toBe(false);
    });
  });
});

describe("sqlite memory listing", () => {
  test("its page and its total come from one snapshot: an entry committed between the two reads counts in neither", async () => {
    await withTwoConnections(async (reader, writer) => {
      reader.memory.upsert(entry("first", "alpha"));
      // the other connection commits after the page was read, before the total is
      const store = committingBefore(reader.memory, "count", () => writer.memory.upsert(entry("second", "beta")));
      const listed = store.list({ limit: 10, offset: 0 });
      expect({ keys: listed.rows.map((row) => row.key), total: listed.total }).toEqual({ keys: ["first"], total: 1 });
      expect(reader.memory.list({ limit: 10, offset: 0 }).total).toBe(2);
    });
  });
});
