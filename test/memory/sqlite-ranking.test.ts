/**
 * SQLite recall scores entries from each term's entry list and computes BM25 only for the score groups that can
 * reach the answer: its cost follows those groups, not every entry that shares a word with the query.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteMemory } from "../../src/memory/index.ts";
import { openSqliteDatabase } from "../../src/storage/index.ts";
import { SqliteMemoryStore } from "../../src/storage/sqlite/memory.ts";
import { tracedDatabase } from "../helpers/traced-db.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-memory-ranking-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));


test("BM25 runs only over the best score group, through one read of each term's index entries", async () => {
  const db = openSqliteDatabase(join(dir, "groups.db"));
  try {
    const { db: tracedDb, executed } = tracedDatabase(db);
    const memory = new SqliteMemory(() => new SqliteMemoryStore(tracedDb));
    db.exec("BEGIN");
    // "garden" in 300 entries, "orchid" in 2: only the entries holding both reach the answer
    for (let i = 0; i < 300; i++) await memory.store(`g${i}`, `garden note ${i}`, "core");
    for (let i = 0; i < 2000; i++) await memory.store(`o${i}`, `other note ${i}`, "core");
    await memory.store("both-short", "orchid garden", "core");
    await memory.store("both-long", "the orchid in the garden by the old wall", "core");
    db.exec("COMMIT");
    executed.length = 0;
    const hits = await memory.recall("orchid garden", 5);
    expect(hits.map((e) => e.key)).toEqual(["both-short", "both-long"]);
    const ranked = executed.filter(({ sql }) => sql.includes("bm25("));
    expect(ranked).toHaveLength(1);
    expect(JSON.parse(String(ranked[0]!.params.seqs))).toHaveLength(2);
    // the entry list is tested row by row against the full-text scan, never looked up one listed entry at a time
    const plan = db
      .query<{ detail: string }, Record<string, string | number>>(`EXPLAIN QUERY PLAN ${ranked[0]!.sql}`)
      .all(ranked[0]!.params)
      .map((row) => row.detail);
    expect(plan.some((detail) => /^SCAN memories_fts VIRTUAL TABLE INDEX 0:M/.test(detail))).toBe(true);
    expect(plan.some((detail) => /INDEX 0:=/.test(detail))).toBe(false);
  } finally {
    db.close();
  }
});

test("private and other sessions' entries of the best group are skipped, the next visible ones returned", async () => {
  const db = openSqliteDatabase(join(dir, "visible.db"));
  try {
    const { db: tracedDb, executed } = tracedDatabase(db);
    const memory = new SqliteMemory(() => new SqliteMemoryStore(tracedDb));
    db.exec("BEGIN");
    for (let i = 0; i < 60; i++) await memory.store(`hidden${i}`, "kayak trip", "core", null, { private: true });
    for (let i = 0; i < 40; i++) await memory.store(`theirs${i}`, "kayak trip", "core", "session-b");
    await memory.store("mine", "kayak trip with a longer note attached to it", "core", "session-a");
    for (let i = 0; i < 1000; i++) await memory.store(`filler${i}`, `filler ${i}`, "core");
    db.exec("COMMIT");
    executed.length = 0;
    expect((await memory.recall("kayak trip", 5, "session-a")).map((e) => e.key)).toEqual(["mine"]);
    // the rows are found by primary key: never every global entry through the session index, never a table scan
    for (const { sql, params } of executed) {
      const plan = db
        .query<{ detail: string }, Record<string, string | number>>(`EXPLAIN QUERY PLAN ${sql}`)
        .all(params)
        .map((row) => row.detail);
      expect(plan.filter((detail) => /^SCAN (memories|m)\b(?! VIRTUAL)|memories_session/.test(detail))).toEqual([]);
    }
    expect(await memory.recall("kayak trip", 100, "session-a", { includePrivate: true })).toHaveLength(61);
  } finally {
    db.close();
  }
});
