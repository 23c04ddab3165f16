import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStorage } from "../../src/storage/index.ts";
import { isPrxError } from "../../src/core/errors.ts";
import {
  MEMORY_MAX_CONTENT_BYTES,
  MEMORY_MAX_KEY_BYTES,
  MEMORY_MAX_RECALL_LIMIT,
  MEMORY_COMMON_TERM_SHARE,
  MEMORY_RANK_TERM_MAX_DOCS,
  SqliteMemory,
} from "../../src/memory/index.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-memory-"));
const path = join(dir, "prx.db");
const storage = openSqliteStorage(path);
const db = storage.db;
const memory = new SqliteMemory(() => storage.memory);

afterAll(() => {
  void storage.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  db.exec("DELETE FROM memories");
});

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(isPrxError(caught)).toBe(true);
  expect((caught as { code: string }).code).toBe(code);
}

describe("SqliteMemory", () => {
  test("store, get, replace keeps id and one row", async () => {
    await memory.store("user_name", "The user is called Ada", "profile");
    const first = await memory.get("user_name");
    expect(first?.content).toBe("The user is called Ada");
    expect(first?.category).toBe("profile");
    expect(first?.session_id).toBeNull();
    await memory.store("user_name", "The user is called Grace", "profile");
    const second = await memory.get("user_name");
    expect(second?.content).toBe("The user is called Grace");
    expect(second?.id).toBe(first!.id);
    expect(await memory.count()).toBe(1);
    const hits = await memory.recall("Ada", 5);
    expect(hits).toHaveLength(0);
    expect((await memory.recall("Grace", 5)).map((e) => e.key)).toEqual(["user_name"]);
  });

  test("recall ranks by the share of the query matched, BM25 breaking ties; scores are shares in (0, 1]", async () => {
    await memory.store("a", "coffee coffee coffee every morning", "core");
    await memory.store("b", "tea in the afternoon, coffee sometimes", "core");
    await memory.store("c", "the weather is nice", "core");
    const hits = await memory.recall("coffee", 10);
    expect(hits.map((e) => e.key)).toEqual(["a", "b"]);
    expect(hits.map((e) => e.score)).toEqual([1, 1]);
    // b holds both terms, a only one of two equally rare ones: a is cut (0.5 is under 0.7 of b's 1.0)
    const both = await memory.recall("coffee afternoon", 10);
    expect(both.map((e) => [e.key, e.score])).toEqual([["b", 1]]);
  });

  test("porter stemming and diacritics fold", async () => {
    await memory.store("run", "Ada likes running in the café", "core");
    expect((await memory.recall("runs", 5)).map((e) => e.key)).toEqual(["run"]);
    expect((await memory.recall("cafe", 5)).map((e) => e.key)).toEqual(["run"]);
  });

  test("session scoping returns that session plus global entries", async () => {
    await memory.store("global", "shared fact about pizza", "core");
    await memory.store("s1", "session one likes pizza", "core", "s1");
    await memory.store("s2", "session two likes pizza", "core", "s2");
    const inS1 = (await memory.recall("pizza", 10, "s1")).map((e) => e.key).sort();
    expect(inS1).toEqual(["global", "s1"]);
    const all = (await memory.recall("pizza", 10)).map((e) => e.key).sort();
    expect(all).toEqual(["global", "s1", "s2"]);
    const recentS2 = (await memory.recall("", 10, "s2")).map((e) => e.key).sort();
    expect(recentS2).toEqual(["global", "s2"]);
  });

  test("forget and count", async () => {
    await memory.store("k1", "one", "core");
    await memory.store("k2", "two", "core");
    expect(await memory.count()).toBe(2);
    expect(await memory.forget("k1")).toBe(true);
    expect(await memory.forget("k1")).toBe(false);
    expect(await memory.count()).toBe(1);
    expect(await memory.recall("one", 5)).toHaveLength(0);
    expect(await memory.get("k1")).toBeNull();
  });

  test("health is true on a working database", async () => {
    expect(await memory.health()).toBe(true);
  });

  test("empty or punctuation-only query returns the most recent entries", async () => {
    await memory.store("old", "first", "core");
    await memory.store("new", "second", "core");
    db.exec("UPDATE memories SET updated_at = '2000-01-01T00:00:00.000Z' WHERE key = 'old'");
    for (const query of ["", "   ", "?!...", '"', "***", "😀🎉"]) {
      const hits = await memory.recall(query, 5);
      expect(hits.map((e) => e.key)).toEqual(["new", "old"]);
      expect(hits[0]!.score).toBeNull();
    }
  });

  test("hostile FTS syntax never raises", async () => {
    await memory.store("q", 'He said "NEAR the AND gate" * twice (really) 😀 naïve', "core");
    const queries = [
      '"',
      '""',
      'foo"bar',
      "*",
      "gate*",
      "NEAR(",
      "NEAR(gate twice, 2)",
      "AND",
      "gate AND",
      "OR OR OR",
      "NOT gate",
      "-gate",
      "^gate",
      "col:gate",
      "key:q",
      "{content}: gate",
      "(gate",
      "gate)",
      "gate + twice",
      "😀 gate",
      "naive",
      "日本語のテキスト",
      "\u0000gate\u0007",
      "x".repeat(10_000),
    ];
    for (const query of queries) {
      const hits = await memory.recall(query, 5);
      expect(Array.isArray(hits)).toBe(true);
    }
    expect((await memory.recall("NEAR(gate", 5)).map((e) => e.key)).toEqual(["q"]);
    // operators are plain words (and "AND" a stop word): nothing here is FTS syntax
    expect((await memory.recall('gate AND "NOT"', 5)).map((e) => e.key)).toEqual(["q"]);
    expect((await memory.recall("naive 😀", 5)).map((e) => e.key)).toEqual(["q"]);
  });

  test("a query whose terms match nothing returns nothing", async () => {
    await memory.store("k", "alpha beta", "core");
    expect(await memory.recall("gamma delta", 5)).toEqual([]);
  });

  test("key length at the limit passes and one past fails", async () => {
    const atLimit = "k".repeat(MEMORY_MAX_KEY_BYTES);
    await memory.store(atLimit, "x", "core");
    expect((await memory.get(atLimit))?.key).toBe(atLimit);
    await rejectsWith(memory.store(atLimit + "k", "x", "core"), "LIMIT_EXCEEDED");
    // multi-byte characters count as bytes: 2-byte é makes 129 chars exceed 256 bytes
    await rejectsWith(memory.store("é".repeat(MEMORY_MAX_KEY_BYTES / 2 + 1), "x", "core"), "LIMIT_EXCEEDED");
    await rejectsWith(memory.store("", "x", "core"), "MEMORY");
  });

  test("content length at the limit passes and one past fails", async () => {
    const atLimit = "c".repeat(MEMORY_MAX_CONTENT_BYTES);
    await memory.store("big", atLimit, "core");
    expect((await memory.get("big"))?.content.length).toBe(MEMORY_MAX_CONTENT_BYTES);
    await rejectsWith(memory.store("big2", atLimit + "c", "core"), "LIMIT_EXCEEDED");
    expect(await memory.get("big2")).toBeNull();
  });

  test("recall limit at the maximum passes and one past fails", async () => {
    db.exec("BEGIN");
    for (let i = 0; i < MEMORY_MAX_RECALL_LIMIT + 5; i++) await memory.store(`k${i}`, `common word ${i}`, "core");
    db.exec("COMMIT");
    expect(await memory.recall("", MEMORY_MAX_RECALL_LIMIT)).toHaveLength(MEMORY_MAX_RECALL_LIMIT);
    await rejectsWith(memory.recall("common", MEMORY_MAX_RECALL_LIMIT + 1), "LIMIT_EXCEEDED");
    await rejectsWith(memory.recall("common", 0), "MEMORY");
  });

  test("a term in more than MEMORY_RANK_TERM_MAX_DOCS entries never matches on its own", async () => {
    // Enough other entries that the term stays under MEMORY_COMMON_TERM_SHARE: only the absolute cap applies.
    const others = Math.ceil((MEMORY_RANK_TERM_MAX_DOCS + 1) / MEMORY_COMMON_TERM_SHARE);
    db.exec("BEGIN");
    for (let i = 0; i < MEMORY_RANK_TERM_MAX_DOCS; i++) await memory.store(`a${i}`, `frequent item${i}`, "core");
    for (let i = 0; i < others; i++) await memory.store(`o${i}`, `unrelated${i}`, "core");
    db.exec("COMMIT");
    await memory.store("rare", "seldom", "core");
    // at the limit "frequent" still matches
    expect(await memory.recall("frequent", 5)).toHaveLength(5);
    // one past the limit it matches nothing on its own, and only the rarer term counts
    await memory.store("past", "frequent", "core");
    expect(await memory.recall("frequent", 5)).toEqual([]);
    expect((await memory.recall("frequent seldom", MEMORY_MAX_RECALL_LIMIT)).map((e) => e.key)).toEqual(["rare"]);
  });

  test("the FTS index stays consistent with the table after replaces and deletes", async () => {
    await memory.store("k", "apple", "core");
    await memory.store("k", "banana", "core");
    await memory.forget("k");
    await memory.store("k2", "cherry", "core");
    db.exec("INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)");
    expect(await memory.recall("apple banana", 5)).toEqual([]);
  });
});
