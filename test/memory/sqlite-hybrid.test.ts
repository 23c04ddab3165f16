/**
 * memory.backend = "sqlite" with sqlite-vec: the shared hybrid suite (hybrid-suite.ts) on the workspace file, and
 * what is SQLite's own (the extension written to the cache, the vector tables).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sqliteRecallMode } from "../../src/agent/memory-embed.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { MEMORY_VECTOR_CANDIDATES, SqliteMemory } from "../../src/memory/index.ts";
import { createProviderResolver } from "../../src/providers/index.ts";
import { SqliteEmbeddings } from "../../src/memory/sqlite-embeddings.ts";
import { openSqliteStorage, type SqliteStorage } from "../../src/storage/index.ts";
import type { MemoryVectorStore } from "../../src/storage/types.ts";
import { FAKE_EMBEDDING_DIMENSIONS, startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import { fakeMemoryEmbedder } from "../helpers/fake-embedder.ts";
import { compareHybrid, corpusNotes, CUTOFF, storeCorpus } from "../helpers/recall-corpus.ts";
import { prng, sentence, wordSource } from "../bench/zipf-text.ts";
import { hybridSuite } from "./hybrid-suite.ts";

// the corpus among 2,000 notes embeds and recalls a few thousand times: a loaded machine needs more than 5 s
setDefaultTimeout(60_000);
const dir = mkdtempSync(join(tmpdir(), "prx-hybrid-recall-"));
let storage: SqliteStorage;
let fake: FakeOpenAIServer;
let vectors: MemoryVectorStore;

beforeAll(async () => {
  fake = startFakeOpenAI();
  storage = openSqliteStorage(join(dir, "prx.db"));
  const opened = await storage.memoryVectors(join(dir, "cache"));
  if ("unavailable" in opened) throw new Error(opened.unavailable);
  vectors = opened;
});
afterAll(async () => {
  await storage.close();
  await fake.stop();
  rmSync(dir, { recursive: true, force: true });
});

hybridSuite("SQLite", {
  fake: () => fake,
  hybrid: (options = {}) =>
    new SqliteMemory(() => storage.memory, {
      vectors,
      embeddings: new SqliteEmbeddings(vectors, options.embed ?? fakeMemoryEmbedder(fake.url)),
      ...(options.minSimilarity === undefined ? {} : { minSimilarity: options.minSimilarity }),
    }),
  plain: () => new SqliteMemory(() => storage.memory),
  embedded: async () =>
    storage.db
      .query<{ key: string }, []>("SELECT m.key FROM memory_vectors v JOIN memories m ON m.seq = v.seq AND m.updated_at = v.revision ORDER BY m.key")
      .all()
      .map((r) => r.key),
  waiting: async () => vectors.counts().pending,
  clear: async () => void storage.db.exec("DELETE FROM memories"),
});

describe("vectors on SQLite", () => {
  test("sqlite-vec is written once to the cache by content hash and loaded", () => {
    const files = readdirSync(join(dir, "cache", "sqlite-vec"));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^[0-9a-f]{64}\.so$/);
    expect(storage.db.query<{ v: string }, []>("SELECT vec_version() AS v").get()!.v).toMatch(/^v0\./);
  });

  test("each vector records its model and dimension; a forgotten entry leaves no vector or sign bits behind", async () => {
    storage.db.exec("DELETE FROM memories");
    const memory = new SqliteMemory(() => storage.memory, { vectors, embeddings: new SqliteEmbeddings(vectors, fakeMemoryEmbedder(fake.url)) });
    await memory.store("our_gp", "Our physician is Dr Patel", "health");
    expect(storage.db.query("SELECT s.model, s.dims, length(v.embedding) AS bytes, length(b.bits) AS bits FROM memory_vectors v JOIN memory_vector_spaces s ON s.space = v.space JOIN memory_vector_bits b ON b.seq = v.seq").all()).toEqual([
      { model: "fake-embed", dims: FAKE_EMBEDDING_DIMENSIONS, bytes: FAKE_EMBEDDING_DIMENSIONS, bits: FAKE_EMBEDDING_DIMENSIONS / 8 },
    ]);
    await memory.forget("our_gp");
    const left = storage.db.query<{ n: number }, []>(
      "SELECT (SELECT count(*) FROM memory_vectors) + (SELECT count(*) FROM memory_vector_bits) + (SELECT count(*) FROM memory_vector_pending) AS n",
    );
    expect(left.get()!.n).toBe(0);
  });

  test("where sqlite-vec cannot load, memory stays full-text and the reason says why", async () => {
    const other = openSqliteStorage(":memory:");
    try {
      // a cache directory that cannot be made: the extension cannot be written, so it cannot load
      const config = ConfigSchema.parse({
        default_provider: "fake",
        providers: { fake: { base_url: fake.url, embedding_model: "fake-embed" } },
      });
      const mode = await sqliteRecallMode(other, "/dev/null/cache", config, createProviderResolver(config, { env: {} }));
      expect(mode).toMatchObject({ recall: "fts", hybrid: null });
      expect(mode.detail).toContain("sqlite-vec did not load");
      expect(mode.detail).toContain("full-text");
      const without = ConfigSchema.parse({ default_provider: "fake", providers: { fake: { base_url: fake.url } } });
      expect(await sqliteRecallMode(other, join(dir, "cache"), without, createProviderResolver(without, { env: {} }))).toMatchObject({
        recall: "fts",
        hybrid: null,
      });
    } finally {
      await other.close();
    }
  });

  test(`past ${MEMORY_VECTOR_CANDIDATES} vectors the codes still pick the right candidates: the corpus among 2,000 other notes`, async () => {
    storage.db.exec("DELETE FROM memories");
    const plain = new SqliteMemory(() => storage.memory);
    await storeCorpus(plain);
    const word = wordSource(11);
    const random = prng(2024);
    const at = new Date().toISOString();
    storage.db.transaction(() => {
      for (let i = 0; i < 2000; i++) {
        storage.memory.upsert({ key: `filler_${i}`, content: sentence(word, random, 6, 18), category: "core", sessionId: null, private: false, at });
      }
    })();
    const embeddings = new SqliteEmbeddings(vectors, fakeMemoryEmbedder(fake.url));
    expect(await embeddings.reindex({ batch: 256 })).toBe(corpusNotes().length + 2000);
    const hybrid = new SqliteMemory(() => storage.memory, { vectors, embeddings });
    const recall = (m: SqliteMemory) => async (q: string) => (await m.recall(q, CUTOFF, null, { relevantOnly: true })).map((e) => e.key);
    const scores = await compareHybrid(recall(plain), recall(hybrid));
    expect(scores.meaning.hybrid.recall).toBeGreaterThan(0.8);
    expect(scores.hybrid.recall).toBeGreaterThanOrEqual(scores.fullText.recall);
    console.info(`recall corpus among 2,000 other notes on SQLite: ${scores.line}`);
  });
});
