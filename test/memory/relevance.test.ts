import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStorage } from "../../src/storage/index.ts";
import {
  MEMORY_COMMON_TERM_MIN_ENTRIES,
  MEMORY_COMMON_TERM_SHARE,
  MEMORY_MAX_QUERY_TERMS,
  MEMORY_RECALL_MIN_SCORE,
  MEMORY_RECALL_RELATIVE_CUTOFF,
  SqliteMemory,
  contentTerms,
} from "../../src/memory/index.ts";
import { termWeight } from "../../src/memory/relevance.ts";
import { corpusQueries, scoreCorpus, storeCorpus } from "../helpers/recall-corpus.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-relevance-"));
const path = join(dir, "prx.db");
const storage = openSqliteStorage(path);
const db = storage.db;
const memory = new SqliteMemory(() => storage.memory);
const keys = async (query: string, limit = 10) => (await memory.recall(query, limit)).map((e) => e.key);

afterAll(() => {
  void storage.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => db.exec("DELETE FROM memories"));

async function storeMany(count: number, content: (i: number) => string, prefix: string): Promise<void> {
  db.exec("BEGIN");
  for (let i = 0; i < count; i++) await memory.store(`${prefix}${i}`, content(i), "core");
  db.exec("COMMIT");
}

describe("recall relevance", () => {
  test("unrelated notes never answer a question they do not match (my cat, my bank pin, my weekend plans)", async () => {
    await memory.store("cat", "my cat is Tom", "core");
    await memory.store("bank_pin", "my bank pin is 1234", "core");
    expect(await keys("tell me about my weekend plans")).toEqual([]);
    expect(await keys("what is my cat called?")).toEqual(["cat"]);
    expect(await keys("my bank pin")).toEqual(["bank_pin"]);
  });

  test("stop words never match on their own; an empty query lists the most recent entries", async () => {
    await memory.store("a", "what is it about me that you know", "core");
    expect(contentTerms("What do you know about me?")).toEqual([]);
    expect(await keys("What do you know about me?")).toEqual([]);
    expect(await keys("")).toEqual(["a"]);
    expect(await memory.recall("?!", 5, null, { relevantOnly: true })).toEqual([]);
  });

  test("an entry matching exactly MEMORY_RECALL_MIN_SCORE of the query is kept; one matching less is not", async () => {
    expect(MEMORY_RECALL_MIN_SCORE).toBe(0.5);
    await memory.store("a", "walnut", "core");
    await memory.store("b", "hazelnut", "core");
    // two equally rare terms: each entry holds half the query's weight
    const half = await memory.recall("walnut hazelnut", 10);
    expect(half.map((e) => [e.key, e.score])).toEqual([
      ["a", 0.5],
      ["b", 0.5],
    ]);
    // a third term no entry holds weighs like the rarest: each entry now holds a third
    expect(await keys("walnut hazelnut pistachio")).toEqual([]);
  });

  test("hits at MEMORY_RECALL_RELATIVE_CUTOFF of the best are kept, weaker ones dropped", async () => {
    expect(MEMORY_RECALL_RELATIVE_CUTOFF).toBe(0.7);
    const words = ["apple", "banana", "cherry", "damson", "elder", "fig", "grape", "hazel", "kiwi", "lemon"];
    await memory.store("all", words.join(" "), "core");
    await memory.store("seven", words.slice(0, 7).join(" "), "core");
    await memory.store("six", words.slice(0, 6).join(" "), "core");
    // fillers give every word the same number of entries (3), so every word weighs the same
    await memory.store("f1", "grape", "core");
    await memory.store("f2", "hazel kiwi lemon", "core");
    await memory.store("f3", "hazel kiwi lemon", "core");
    const hits = await memory.recall(words.join(" "), 10);
    expect(hits.map((e) => e.key)).toEqual(["all", "seven"]);
    expect(hits[1]!.score).toBeCloseTo(0.7, 9);
  });

  test(`a term in more than ${MEMORY_COMMON_TERM_SHARE * 100}% of the entries is too common to match on its own`, async () => {
    const n = MEMORY_COMMON_TERM_MIN_ENTRIES;
    const atShare = n * MEMORY_COMMON_TERM_SHARE;
    await storeMany(atShare, (i) => `meeting notes ${i}`, "m");
    await storeMany(n - atShare, (i) => `filler${i}`, "f");
    expect(await keys("meeting", 100)).toHaveLength(atShare);
    // one more entry with the term: past the share
    await memory.store("extra", "meeting", "core");
    expect(await keys("meeting", 100)).toEqual([]);
    // a rarer term still matches, and the common one no longer adds to the score
    await memory.store("budget", "budget meeting", "core");
    expect(await keys("budget meeting")).toEqual(["budget"]);
  });

  test(`under ${MEMORY_COMMON_TERM_MIN_ENTRIES} entries no term is too common`, async () => {
    const below = MEMORY_COMMON_TERM_MIN_ENTRIES - 1;
    await storeMany(below, (i) => `garden ${i}`, "g");
    expect(await keys("garden", 100)).toHaveLength(below);
    await memory.store("one_more", "garden", "core");
    expect(await keys("garden", 100)).toEqual([]);
  });

  test("a term no entry holds weighs like a term held by one entry", () => {
    expect(termWeight(0, 200)).toBe(termWeight(1, 200));
    expect(termWeight(1, 200)).toBeGreaterThan(termWeight(2, 200));
    expect(termWeight(5, 5)).toBeGreaterThan(0);
  });
});

describe("recall corpus (test/fixtures/recall)", () => {
  test("200 notes: precision@5 >= 0.8, recall@5 >= 0.8, and no hit for a question no note is about", async () => {
    await storeCorpus(memory);
    const scores = await scoreCorpus(async (query) => keys(query, 5));
    expect(corpusQueries().filter((q) => q.relevant.length === 0).length).toBeGreaterThanOrEqual(20);
    expect(scores.precision).toBeGreaterThanOrEqual(0.8);
    expect(scores.recall).toBeGreaterThanOrEqual(0.8);
    const unrelatedHits = scores.outcomes.filter((o) => o.relevant.length === 0 && o.returned.length > 0);
    expect(unrelatedHits.map((o) => [o.query, o.returned])).toEqual([]);
    expect(scores.noHitRate).toBe(1);
  });
});

describe("query terms", () => {
  test("MEMORY_MAX_QUERY_TERMS counts content terms: stop words in a long message do not use up the budget", () => {
    const filler = "the and of to in is it you that he was for on are with as his they be at ".repeat(3);
    const words = Array.from({ length: MEMORY_MAX_QUERY_TERMS + 1 }, (_, i) => `word${i}`);
    const terms = contentTerms(`${filler} ${words.join(" ")}`);
    expect(terms).toEqual(words.slice(0, MEMORY_MAX_QUERY_TERMS));
  });
});
