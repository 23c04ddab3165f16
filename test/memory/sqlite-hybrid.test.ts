/**
 * memory.backend = "sqlite" with sqlite-vec and embeddings from the fake OpenAI server through the default provider:
 * hybrid recall, its fallbacks, the embedding queue and reindex, as on PostgreSQL (postgres-hybrid.test.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MEMORY_EMBED_BACKFILL_MAX, MEMORY_EMBED_TEXT_MAX_CHARS, SqliteMemory } from "../../src/memory/index.ts";
import { SqliteEmbeddings } from "../../src/memory/sqlite-embeddings.ts";
import { openSqliteStorage, type SqliteStorage } from "../../src/storage/index.ts";
import type { MemoryVectorStore } from "../../src/storage/types.ts";
import { FAKE_EMBEDDING_DIMENSIONS, startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import { fakeMemoryEmbedder } from "../helpers/fake-embedder.ts";
import { compareHybrid, CUTOFF, storeCorpus } from "../helpers/recall-corpus.ts";

const dir = mkdtempSync(join(tmpdir(), "prx-hybrid-recall-"));
let storage: SqliteStorage;
let fake: FakeOpenAIServer;
let vectors: MemoryVectorStore;
let memory: SqliteMemory;

function hybrid(minSimilarity?: number): SqliteMemory {
  return new SqliteMemory(storage.memory, {
    vectors,
    embeddings: new SqliteEmbeddings(vectors, fakeMemoryEmbedder(fake.url)),
    ...(minSimilarity === undefined ? {} : { minSimilarity }),
  });
}

beforeAll(async () => {
  fake = startFakeOpenAI();
  storage = openSqliteStorage(join(dir, "prx.db"));
  const opened = await storage.memoryVectors(join(dir, "cache"));
  if ("unavailable" in opened) throw new Error(opened.unavailable);
  vectors = opened;
  memory = hybrid();
});
afterAll(async () => {
  await storage.close();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  storage.db.exec("DELETE FROM memories");
  fake.failEmbeddings(null);
  fake.reset();
});

const keys = async (query: string, session: string | null = null, includePrivate = false, m = memory) =>
  (await m.recall(query, 5, session, { includePrivate, relevantOnly: true })).map((h) => h.key);
const embedded = () =>
  storage.db
    .query<{ key: string }, []>(
      "SELECT m.key FROM memory_vectors v JOIN memories m ON m.seq = v.seq AND m.updated_at = v.revision ORDER BY m.key",
    )
    .all()
    .map((r) => r.key);
const waiting = () => vectors.counts().pending;

describe("hybrid recall on SQLite with sqlite-vec", () => {
  test("the extension is written once to the cache by content hash", async () => {
    const files = readdirSync(join(dir, "cache", "sqlite-vec"));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{64}\.so$/);
    expect(storage.db.query<{ v: string }, []>("SELECT vec_version() AS v").get()!.v).toMatch(/^v0\./);
  });

  test("a wording full-text search misses is found by the vectors; unrelated questions find nothing", async () => {
    await memory.store("gp_contact", "Our physician is Dr Patel at Hyde Park surgery", "health");
    await memory.store("dentist", "Dentist appointment on Tuesday at 10", "health");
    expect(embedded()).toEqual(["dentist", "gp_contact"]);
    const ftsOnly = new SqliteMemory(storage.memory);
    expect(await ftsOnly.recall("who is my doctor", 5, null, { relevantOnly: true })).toEqual([]);
    const hits = await memory.recall("who is my doctor", 5, null, { relevantOnly: true });
    expect(hits.map((h) => h.key)).toEqual(["gp_contact"]);
    expect(hits[0]!.score!).toBeGreaterThan(0);
    expect(hits[0]!.score!).toBeLessThanOrEqual(1);
    expect(await keys("What's the capital of Australia?")).toEqual([]);
    expect(await keys("what is my")).toEqual([]);
  });

  test("vector_min_similarity sets the bar a vector hit must reach", async () => {
    await memory.store("gp_contact", "Our physician is Dr Patel", "health");
    expect(await keys("who is my doctor", null, false, hybrid(1))).toEqual([]);
    expect(await keys("physician", null, false, hybrid(1))).toEqual(["gp_contact"]);
    expect(await keys("who is my doctor", null, false, hybrid(0))).toEqual(["gp_contact"]);
  });

  test("vector hits keep session scoping and privacy", async () => {
    await memory.store("gp_global", "Our physician is Dr Patel", "health");
    await memory.store("gp_a", "Session a physician: Dr Okafor", "health", "a");
    await memory.store("gp_b", "Session b physician: Dr Lee", "health", "b");
    await memory.store("gp_private", "Private physician: Dr Novak", "health", null, { private: true });
    const sorted = async (session: string | null, includePrivate = false) => (await keys("who is my doctor", session, includePrivate)).sort();
    expect(await sorted("a")).toEqual(["gp_a", "gp_global"]);
    expect(await sorted(null)).toEqual(["gp_a", "gp_b", "gp_global"]);
    expect(await sorted(null, true)).toEqual(["gp_a", "gp_b", "gp_global", "gp_private"]);
  });

  test("provider down: the entry is kept and recalled by full-text search, and embedded by a later store", async () => {
    fake.failEmbeddings(500);
    await memory.store("boiler", "The boiler service is booked for Friday", "home");
    expect(await memory.get("boiler")).toMatchObject({ key: "boiler" });
    expect(embedded()).toEqual([]);
    expect(await keys("boiler service")).toEqual(["boiler"]);
    fake.failEmbeddings(400);
    await memory.store("plumber", "The plumber is called Sam", "home");
    expect(embedded()).toEqual([]);
    fake.failEmbeddings(null);
    await memory.store("meter", "The gas meter reading is 4512", "home");
    expect(embedded()).toEqual(["boiler", "meter", "plumber"]);
    expect(waiting()).toBe(0);
    expect(await keys("boiler service")).toEqual(["boiler"]);
  });

  test(`the backfill embeds at most ${MEMORY_EMBED_BACKFILL_MAX} waiting entries per store, the stored one first, in one call`, async () => {
    fake.failEmbeddings(500);
    for (let i = 0; i <= MEMORY_EMBED_BACKFILL_MAX; i++) await memory.store(`waiting_${String(i).padStart(2, "0")}`, `note number ${i}`, "core");
    expect(embedded()).toEqual([]);
    expect(waiting()).toBe(MEMORY_EMBED_BACKFILL_MAX + 1);
    fake.failEmbeddings(null);
    fake.reset();
    await memory.store("fresh", "a fresh note", "core");
    expect(waiting()).toBe(1);
    const first = embedded();
    expect(first).toHaveLength(1 + MEMORY_EMBED_BACKFILL_MAX);
    expect(first).toContain("fresh");
    expect(first).not.toContain(`waiting_${String(MEMORY_EMBED_BACKFILL_MAX).padStart(2, "0")}`);
    const calls = fake.requests.filter((r) => r.path === "/v1/embeddings");
    expect(calls).toHaveLength(1);
    expect((calls[0]!.body as { input: string[] }).input[0]).toBe("fresh\na fresh note");
    await memory.store("later", "a later note", "core");
    expect(embedded()).toHaveLength(MEMORY_EMBED_BACKFILL_MAX + 3);
    expect(waiting()).toBe(0);
  });

  test("a changed entry is re-embedded; a query that cannot be embedded falls back to full-text search", async () => {
    await memory.store("our_contact", "Our physician is Dr Patel", "health");
    await memory.store("our_contact", "Our dentist is Dr Patel", "health");
    expect(embedded()).toEqual(["our_contact"]);
    expect(await keys("who is my doctor")).toEqual([]);
    fake.failEmbeddings(500);
    expect(await keys("dentist")).toEqual(["our_contact"]);
  });

  test("forget removes the entry's vector; deleting a session removes its vectors", async () => {
    await memory.store("gp_contact", "Our physician is Dr Patel", "health");
    await memory.store("gp_a", "Session a physician: Dr Okafor", "health", "a");
    expect(await memory.forget("gp_contact")).toBe(true);
    expect(memory.catalog.forgetSession("a")).toBe(1);
    expect(storage.db.query<{ n: number }, []>("SELECT (SELECT count(*) FROM memory_vectors) + (SELECT count(*) FROM memory_vector_bits) AS n").get()!.n).toBe(0);
    expect(await keys("who is my doctor")).toEqual([]);
  });

  test("model and dimension are recorded per vector; another model's vectors wait again and are not searched", async () => {
    await memory.store("gp_contact", "Our physician is Dr Patel", "health");
    expect(storage.db.query("SELECT model, dims FROM memory_vector_spaces").all()).toEqual([{ model: "fake-embed", dims: FAKE_EMBEDDING_DIMENSIONS }]);
    const other = new SqliteEmbeddings(vectors, async (input) => {
      const answer = await fakeMemoryEmbedder(fake.url)(input);
      return { ...answer, model: "other-model" };
    });
    const switched = new SqliteMemory(storage.memory, { vectors, embeddings: other });
    // the query's model has no vectors yet: the entry waits again, recall is full-text (finds nothing by meaning)
    expect(await keys("who is my doctor", null, false, switched)).toEqual([]);
    expect(waiting()).toBe(1);
    expect(await other.reindex()).toBe(1);
    expect(await keys("who is my doctor", null, false, switched)).toEqual(["gp_contact"]);
  });

  test("reindex embeds every waiting entry in batches and reports progress; --all re-embeds the whole store", async () => {
    fake.failEmbeddings(500);
    for (let i = 0; i < 10; i++) await memory.store(`n${i}`, `note number ${i}`, "core");
    fake.failEmbeddings(null);
    fake.reset();
    const seen: Array<[number, number]> = [];
    const embeddings = new SqliteEmbeddings(vectors, fakeMemoryEmbedder(fake.url));
    expect(await embeddings.reindex({ batch: 4, progress: (done, total) => seen.push([done, total]) })).toBe(10);
    expect(seen).toEqual([[0, 10], [4, 10], [8, 10], [10, 10]]);
    expect(fake.requests.filter((r) => r.path === "/v1/embeddings")).toHaveLength(3);
    expect(waiting()).toBe(0);
    expect(await embeddings.reindex({ all: true, batch: 64 })).toBe(10);
  });

  test("a process without embeddings queues what it writes, replaced or imported, once each, and hybrid recall embeds it later", async () => {
    const plain = new SqliteMemory(storage.memory);
    await plain.store("our_gp", "Our physician is Dr Okafor", "health");
    await plain.store("our_gp", "Our physician is Dr Patel", "health");
    plain.catalog.importRecords([
      { key: "our_gp", content: "Our physician is Dr Patel", category: "health", private: false, session_id: null, created_at: "2026-01-01T00:00:00.000Z", updated_at: "2026-01-02T00:00:00.000Z" },
      { key: "dentist", content: "Dentist on Tuesday", category: "health", private: false, session_id: null, created_at: "2026-01-01T00:00:00.000Z", updated_at: "2026-01-01T00:00:00.000Z" },
    ]);
    expect(waiting()).toBe(2);
    expect(embedded()).toEqual([]);
    await memory.store("boiler", "The boiler is serviced in November", "home");
    expect(waiting()).toBe(0);
    expect(await keys("who is my doctor")).toEqual(["our_gp"]);
  });

  test(`embedded text is key and content cut at ${MEMORY_EMBED_TEXT_MAX_CHARS} characters`, async () => {
    const exact = "x".repeat(MEMORY_EMBED_TEXT_MAX_CHARS - 2);
    await memory.store("k", exact, "core");
    await memory.store("long", "y".repeat(MEMORY_EMBED_TEXT_MAX_CHARS), "core");
    const inputs = fake.requests.filter((r) => r.path === "/v1/embeddings").map((r) => (r.body as { input: string[] }).input[0]!);
    expect(inputs[0]).toBe(`k\n${exact}`);
    expect(inputs[0]!.length).toBe(MEMORY_EMBED_TEXT_MAX_CHARS);
    expect(inputs[1]!.length).toBe(MEMORY_EMBED_TEXT_MAX_CHARS);
  });
});

describe("recall corpus with hybrid ranking on SQLite", () => {
  test("hybrid recall@5 is at least full-text's, precision@5 at most 5 points lower, unrelated questions still silent", async () => {
    await storeCorpus(memory);
    const ftsOnly = new SqliteMemory(storage.memory);
    const recall = (m: SqliteMemory) => async (q: string) => (await m.recall(q, CUTOFF, null, { relevantOnly: true })).map((e) => e.key);
    const scores = await compareHybrid(recall(ftsOnly), recall(memory));
    expect(scores.hybrid.recall).toBeGreaterThanOrEqual(scores.fullText.recall);
    expect(scores.hybrid.precision).toBeGreaterThanOrEqual(scores.fullText.precision - 0.05);
    expect(scores.hybrid.noHitRate).toBe(1);
    expect(scores.meaning.fullText.recall).toBeLessThan(0.2);
    expect(scores.meaning.hybrid.recall).toBeGreaterThan(0.8);
    console.info(`recall corpus on SQLite: ${scores.line}`);
  });
});
