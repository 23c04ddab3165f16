/**
 * The behaviour hybrid recall has on every backend that keeps vectors (SQLite with sqlite-vec, PostgreSQL with
 * pgvector), run by sqlite-hybrid.test.ts and postgres-hybrid.test.ts on their own stores, with embeddings from the
 * fake OpenAI server through the default provider.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { ConfigSchema } from "../../src/config/schema.ts";
import type { EmbedTexts } from "../../src/memory/embeddings.ts";
import {
  MEMORY_EMBED_BACKFILL_MAX,
  MEMORY_EMBED_TEXT_MAX_CHARS,
  MEMORY_VECTOR_MIN_SIMILARITY,
  type MemoryBackend,
} from "../../src/memory/index.ts";
import type { FakeOpenAIServer } from "../fakes/openai-server.ts";
import { fakeMemoryEmbedder } from "../helpers/fake-embedder.ts";
import { compareHybrid, CUTOFF, storeCorpus } from "../helpers/recall-corpus.ts";

export interface HybridHarness {
  fake(): FakeOpenAIServer;
  /** A hybrid backend on the store embedding with `embed` (default: the fake through the default provider). */
  hybrid(options?: { embed?: EmbedTexts; minSimilarity?: number }): MemoryBackend;
  /** The same store without embeddings: full-text search alone. */
  plain(): MemoryBackend;
  /** Keys of the entries holding a vector of their current text, sorted. */
  embedded(): Promise<string[]>;
  /** Entries waiting for a vector. */
  waiting(): Promise<number>;
  /** Delete every entry. */
  clear(): Promise<void>;
}

export function hybridSuite(backend: string, h: HybridHarness): void {
  let memory: MemoryBackend;
  const keys = async (query: string, session: string | null = null, includePrivate = false, m = memory) =>
    (await m.recall(query, 5, session, { includePrivate, relevantOnly: true })).map((e) => e.key);
  const embeddingCalls = () => h.fake().requests.filter((r) => r.path === "/v1/embeddings");

  describe(`hybrid recall on ${backend} (shared suite)`, () => {
    beforeEach(async () => {
      await h.clear();
      h.fake().failEmbeddings(null);
      h.fake().reset();
      memory = h.hybrid();
    });

    test("a wording full-text search misses is found by the vectors; unrelated questions find nothing", async () => {
      await memory.store("our_gp", "Our physician is Dr Patel at Hyde Park surgery", "health");
      await memory.store("dentist", "Dentist appointment on Tuesday at 10", "health");
      expect(await h.embedded()).toEqual(["dentist", "our_gp"]);
      expect(await keys("who is my doctor", null, false, h.plain())).toEqual([]);
      const hits = await memory.recall("who is my doctor", 5, null, { relevantOnly: true });
      expect(hits.map((e) => e.key)).toEqual(["our_gp"]);
      expect(hits[0]!.score!).toBeGreaterThan(0);
      expect(hits[0]!.score!).toBeLessThanOrEqual(1);
      expect(await keys("What's the capital of Australia?")).toEqual([]);
      expect(await keys("what is my")).toEqual([]);
    });

    test("[memory] vector_min_similarity sets the bar a vector hit must reach (default MEMORY_VECTOR_MIN_SIMILARITY)", async () => {
      expect(ConfigSchema.parse({}).memory.vector_min_similarity).toBe(MEMORY_VECTOR_MIN_SIMILARITY);
      await memory.store("gp_contact", "Our physician is Dr Patel", "health");
      const strict = h.hybrid({ minSimilarity: 1 });
      expect(await keys("who is my doctor", null, false, strict)).toEqual([]);
      expect(await keys("physician", null, false, strict)).toEqual(["gp_contact"]);
      expect(await keys("who is my doctor", null, false, h.hybrid({ minSimilarity: 0 }))).toEqual(["gp_contact"]);
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
      h.fake().failEmbeddings(500);
      await memory.store("boiler", "The boiler service is booked for Friday", "home");
      expect(await memory.get("boiler")).toMatchObject({ key: "boiler" });
      expect(await h.embedded()).toEqual([]);
      expect(await keys("boiler service")).toEqual(["boiler"]);
      h.fake().failEmbeddings(400);
      await memory.store("plumber", "The plumber is called Sam", "home");
      expect(await h.embedded()).toEqual([]);
      h.fake().failEmbeddings(null);
      await memory.store("meter", "The gas meter reading is 4512", "home");
      expect(await h.embedded()).toEqual(["boiler", "meter", "plumber"]);
      expect(await h.waiting()).toBe(0);
      expect(await keys("boiler service")).toEqual(["boiler"]);
    });

    test(`the backfill embeds at most ${MEMORY_EMBED_BACKFILL_MAX} waiting entries per store, the stored one first, in one call`, async () => {
      h.fake().failEmbeddings(500);
      for (let i = 0; i <= MEMORY_EMBED_BACKFILL_MAX; i++) await memory.store(`waiting_${String(i).padStart(2, "0")}`, `note number ${i}`, "core");
      expect(await h.embedded()).toEqual([]);
      expect(await h.waiting()).toBe(MEMORY_EMBED_BACKFILL_MAX + 1);
      h.fake().failEmbeddings(null);
      h.fake().reset();
      await memory.store("fresh", "a fresh note", "core");
      expect(await h.waiting()).toBe(1);
      const first = await h.embedded();
      expect(first).toHaveLength(1 + MEMORY_EMBED_BACKFILL_MAX);
      expect(first).toContain("fresh");
      expect(first).not.toContain(`waiting_${String(MEMORY_EMBED_BACKFILL_MAX).padStart(2, "0")}`);
      expect(embeddingCalls()).toHaveLength(1);
      expect((embeddingCalls()[0]!.body as { input: string[] }).input[0]).toBe("fresh\na fresh note");
      await memory.store("later", "a later note", "core");
      expect(await h.embedded()).toHaveLength(MEMORY_EMBED_BACKFILL_MAX + 3);
      expect(await h.waiting()).toBe(0);
    });

    test("a changed entry is re-embedded; a query that cannot be embedded falls back to full-text search", async () => {
      await memory.store("our_contact", "Our physician is Dr Patel", "health");
      await memory.store("our_contact", "Our dentist is Dr Patel", "health");
      expect(await h.embedded()).toEqual(["our_contact"]);
      expect(await keys("who is my doctor")).toEqual([]);
      h.fake().failEmbeddings(500);
      expect(await keys("dentist")).toEqual(["our_contact"]);
    });

    test("forgetting an entry or a session's entries takes their vectors along", async () => {
      await memory.store("our_gp", "Our physician is Dr Patel", "health");
      await memory.store("gp_a", "Session a physician: Dr Okafor", "health", "a");
      expect(await memory.forget("our_gp")).toBe(true);
      expect(await memory.catalog!.forgetSession("a")).toBe(1);
      expect(await h.embedded()).toEqual([]);
      expect(await keys("who is my doctor")).toEqual([]);
    });

    test("a process without embeddings queues what it writes, replaced or imported, and a hybrid store embeds it later", async () => {
      const plain = h.plain();
      await plain.store("our_gp", "Our physician is Dr Okafor", "health");
      await plain.store("our_gp", "Our physician is Dr Patel", "health");
      const at = "2026-01-02T00:00:00.000Z";
      await plain.catalog!.importRecords([
        { key: "our_gp", content: "Our physician is Dr Patel", category: "health", private: false, session_id: null, created_at: at, updated_at: at },
        { key: "dentist", content: "Dentist on Tuesday", category: "health", private: false, session_id: null, created_at: at, updated_at: at },
      ]);
      expect(await h.waiting()).toBe(2);
      await memory.store("boiler", "The boiler is serviced in November", "home");
      expect(await h.waiting()).toBe(0);
      expect(await keys("who is my doctor")).toEqual(["our_gp"]);
    });

    test("another model's vectors wait again and are not searched until reindexed", async () => {
      await memory.store("our_gp", "Our physician is Dr Patel", "health");
      const fake = fakeMemoryEmbedder(h.fake().url);
      const switched = h.hybrid({ embed: async (input) => ({ ...(await fake(input)), model: "other-model" }) });
      expect(await keys("who is my doctor", null, false, switched)).toEqual([]);
      expect(await h.waiting()).toBe(1);
      expect(await switched.embeddings!.reindex()).toBe(1);
      expect(await keys("who is my doctor", null, false, switched)).toEqual(["our_gp"]);
    });

    test("reindex embeds every waiting entry in batches with progress; all = true embeds every entry again", async () => {
      h.fake().failEmbeddings(500);
      for (let i = 0; i < 10; i++) await memory.store(`n${i}`, `note number ${i}`, "core");
      h.fake().failEmbeddings(null);
      h.fake().reset();
      const seen: Array<[number, number]> = [];
      expect(await memory.embeddings!.reindex({ batch: 4, progress: (done, total) => seen.push([done, total]) })).toBe(10);
      expect(seen).toEqual([[0, 10], [4, 10], [8, 10], [10, 10]]);
      expect(embeddingCalls()).toHaveLength(3);
      expect(await h.waiting()).toBe(0);
      expect(await memory.embeddings!.reindex({ all: true, batch: 64 })).toBe(10);
    });

    test(`embedded text is key and content cut at ${MEMORY_EMBED_TEXT_MAX_CHARS} characters`, async () => {
      const exact = "x".repeat(MEMORY_EMBED_TEXT_MAX_CHARS - 2);
      await memory.store("k", exact, "core");
      await memory.store("long", "y".repeat(MEMORY_EMBED_TEXT_MAX_CHARS), "core");
      const inputs = embeddingCalls().map((r) => (r.body as { input: string[] }).input[0]!);
      expect(inputs[0]).toBe(`k\n${exact}`);
      expect(inputs[0]!.length).toBe(MEMORY_EMBED_TEXT_MAX_CHARS);
      expect(inputs[1]!.length).toBe(MEMORY_EMBED_TEXT_MAX_CHARS);
      expect(inputs[1]!.startsWith("long\nyyy")).toBe(true);
    });

    test("recall corpus: hybrid recall@5 at least full-text's, precision@5 at most 5 points lower, unrelated questions silent", async () => {
      await storeCorpus(memory);
      const recall = (m: MemoryBackend) => async (q: string) => (await m.recall(q, CUTOFF, null, { relevantOnly: true })).map((e) => e.key);
      const scores = await compareHybrid(recall(h.plain()), recall(memory));
      expect(scores.hybrid.recall).toBeGreaterThanOrEqual(scores.fullText.recall);
      expect(scores.hybrid.precision).toBeGreaterThanOrEqual(scores.fullText.precision - 0.05);
      expect(scores.hybrid.noHitRate).toBe(1);
      expect(scores.meaning.fullText.recall).toBeLessThan(0.2);
      expect(scores.meaning.hybrid.recall).toBeGreaterThan(0.8);
      console.info(`recall corpus on ${backend}: ${scores.line}`);
    });
  });
}
