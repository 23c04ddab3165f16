/**
 * memory.backend = "postgres" with pgvector (PGlite + pgvector, see helpers/pglite-server.ts) and embeddings from the
 * fake OpenAI server through the default provider: hybrid recall, its fallbacks and the embedding backfill.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ConfigSchema } from "../../src/config/schema.ts";
import { MEMORY_EMBED_BACKFILL_MAX, MEMORY_EMBED_TEXT_MAX_CHARS, MEMORY_VECTOR_MIN_SIMILARITY } from "../../src/memory/index.ts";
import { PgMemory } from "../../src/memory/postgres.ts";
import { detectVectorSupport } from "../../src/memory/postgres-vector.ts";
import { PG_MIGRATIONS, pgStorage, type PgStorage } from "../../src/storage/postgres/index.ts";
import { FAKE_EMBEDDING_DIMENSIONS, startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import { fakeMemoryEmbedder } from "../helpers/fake-embedder.ts";
import { startPglite, type PgliteServer } from "../helpers/pglite-server.ts";
import { compareHybrid, CUTOFF, scoreCorpus, storeCorpus } from "../helpers/recall-corpus.ts";

setDefaultTimeout(120_000);
let server: PgliteServer;
let fake: FakeOpenAIServer;
let storage: PgStorage;
let memory: PgMemory;

beforeAll(async () => {
  server = await startPglite();
  fake = startFakeOpenAI();
  storage = await pgStorage({ url: server.url, schema: "prx", poolMax: 4 });
  memory = new PgMemory(storage.sql, fakeMemoryEmbedder(fake.url));
});
afterAll(async () => {
  await storage.close();
  await fake.stop();
  await server.stop();
});
beforeEach(async () => {
  await storage.sql.unsafe("DELETE FROM memories");
  fake.failEmbeddings(null);
  fake.reset();
});

const keys = async (query: string, session: string | null = null, includePrivate = false) =>
  (await memory.recall(query, 5, session, { includePrivate, relevantOnly: true })).map((h) => h.key);
const embedded = async () =>
  ((await storage.sql.unsafe("SELECT m.key FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id ORDER BY m.key")) as Array<{ key: string }>).map(
    (r) => r.key,
  );

/** Entries waiting in the backfill's queue (kept by a trigger: a store never scans the memories for them). */
const waiting = async () => ((await storage.sql.unsafe("SELECT count(*)::int AS n FROM memory_embedding_pending")) as Array<{ n: number }>)[0]!.n;

describe("hybrid recall on PostgreSQL with pgvector", () => {
  test("the migration added the embeddings table and detection says hybrid", async () => {
    expect(storage.applied).toEqual(PG_MIGRATIONS.map((m) => m.version));
    expect(storage.applied).toContain(PG_MIGRATIONS.find((m) => m.requires === "vector")!.version);
    expect(await detectVectorSupport(storage.sql, true)).toMatchObject({ extension: "installed", recall: "hybrid" });
    expect(await detectVectorSupport(storage.sql, false)).toMatchObject({ extension: "installed", recall: "fts" });
  });

  test("a related wording full-text search misses is found by the vectors; unrelated questions find nothing", async () => {
    await memory.store("gp_contact", "Our physician is Dr Patel at Hyde Park surgery", "health");
    await memory.store("dentist", "Dentist appointment on Tuesday at 10", "health");
    expect(await embedded()).toEqual(["dentist", "gp_contact"]);
    const ftsOnly = new PgMemory(storage.sql);
    expect(await ftsOnly.recall("who is my doctor", 5, null, { relevantOnly: true })).toEqual([]);
    const hits = await memory.recall("who is my doctor", 5, null, { relevantOnly: true });
    expect(hits.map((h) => h.key)).toEqual(["gp_contact"]);
    expect(hits[0]!.score!).toBeGreaterThan(0);
    expect(hits[0]!.score!).toBeLessThanOrEqual(1);
    expect(await keys("What's the capital of Australia?")).toEqual([]);
    expect(await keys("what is my")).toEqual([]);
  });

  test("[memory] vector_min_similarity sets the bar a vector hit must reach (default MEMORY_VECTOR_MIN_SIMILARITY)", async () => {
    expect(ConfigSchema.parse({}).memory.vector_min_similarity).toBe(MEMORY_VECTOR_MIN_SIMILARITY);
    await memory.store("gp_contact", "Our physician is Dr Patel", "health");
    const strict = new PgMemory(storage.sql, fakeMemoryEmbedder(fake.url), 1);
    expect(await strict.recall("who is my doctor", 5, null, { relevantOnly: true })).toEqual([]);
    expect((await strict.recall("physician", 5, null, { relevantOnly: true })).map((h) => h.key)).toEqual(["gp_contact"]);
    const lenient = new PgMemory(storage.sql, fakeMemoryEmbedder(fake.url), 0);
    expect((await lenient.recall("who is my doctor", 5, null, { relevantOnly: true })).map((h) => h.key)).toEqual(["gp_contact"]);
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
    expect(await embedded()).toEqual([]);
    expect(await keys("boiler service")).toEqual(["boiler"]);
    fake.failEmbeddings(400);
    await memory.store("plumber", "The plumber is called Sam", "home");
    expect(await embedded()).toEqual([]);
    fake.failEmbeddings(null);
    await memory.store("meter", "The gas meter reading is 4512", "home");
    expect(await embedded()).toEqual(["boiler", "meter", "plumber"]);
    expect(await keys("boiler service")).toEqual(["boiler"]);
  });

  test(`the backfill embeds at most ${MEMORY_EMBED_BACKFILL_MAX} waiting entries per store, the stored one first`, async () => {
    fake.failEmbeddings(500);
    for (let i = 0; i <= MEMORY_EMBED_BACKFILL_MAX; i++) await memory.store(`waiting_${String(i).padStart(2, "0")}`, `note number ${i}`, "core");
    expect(await embedded()).toEqual([]);
    expect(await waiting()).toBe(MEMORY_EMBED_BACKFILL_MAX + 1);
    fake.failEmbeddings(null);
    fake.reset();
    await memory.store("fresh", "a fresh note", "core");
    expect(await waiting()).toBe(1);
    const first = await embedded();
    expect(first).toHaveLength(1 + MEMORY_EMBED_BACKFILL_MAX);
    expect(first).toContain("fresh");
    expect(first).not.toContain(`waiting_${String(MEMORY_EMBED_BACKFILL_MAX).padStart(2, "0")}`);
    const calls = fake.requests.filter((r) => r.path === "/v1/embeddings");
    expect(calls).toHaveLength(1);
    expect((calls[0]!.body as { input: string[] }).input[0]).toBe("fresh\na fresh note");
    await memory.store("later", "a later note", "core");
    expect(await embedded()).toHaveLength(MEMORY_EMBED_BACKFILL_MAX + 3);
    expect(await waiting()).toBe(0);
  });

  test("a changed entry is re-embedded; a query that cannot be embedded falls back to full-text search", async () => {
    await memory.store("our_contact", "Our physician is Dr Patel", "health");
    await memory.store("our_contact", "Our dentist is Dr Patel", "health");
    const rows = await storage.sql.unsafe(
      "SELECT e.revision = m.updated_at AS current FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id",
    );
    expect(rows).toEqual([{ current: true }]);
    expect(await keys("who is my doctor")).toEqual([]);
    fake.failEmbeddings(500);
    expect(await keys("dentist")).toEqual(["our_contact"]);
  });

  test(`embedded text is key and content cut at ${MEMORY_EMBED_TEXT_MAX_CHARS} characters`, async () => {
    const exact = "x".repeat(MEMORY_EMBED_TEXT_MAX_CHARS - 2);
    await memory.store("k", exact, "core");
    await memory.store("long", "y".repeat(MEMORY_EMBED_TEXT_MAX_CHARS), "core");
    const inputs = fake.requests.filter((r) => r.path === "/v1/embeddings").map((r) => (r.body as { input: string[] }).input[0]!);
    expect(inputs[0]).toBe(`k\n${exact}`);
    expect(inputs[0]!.length).toBe(MEMORY_EMBED_TEXT_MAX_CHARS);
    expect(inputs[1]!.length).toBe(MEMORY_EMBED_TEXT_MAX_CHARS);
    expect(inputs[1]!.startsWith("long\nyyy")).toBe(true);
  });

  test("one HNSW index per dimension, made with the first vector of that dimension", async () => {
    await memory.store("k", "indexed", "core");
    const indexes = await storage.sql.unsafe("SELECT indexname FROM pg_indexes WHERE tablename = 'memory_embeddings' AND indexname LIKE '%hnsw%'");
    expect(indexes).toEqual([{ indexname: `memory_embeddings_hnsw_${FAKE_EMBEDDING_DIMENSIONS}` }]);
  });
});

describe("recall corpus with hybrid ranking", () => {
  test("keeps full-text search's results (at least 95 % of queries), still no hit for unrelated questions", async () => {
    const fullText = new PgMemory(storage.sql);
    await storeCorpus(memory);
    const recall = (m: PgMemory) => async (q: string) => (await m.recall(q, CUTOFF, null, { relevantOnly: true })).map((e) => e.key);
    const a = await scoreCorpus(recall(fullText));
    const b = await scoreCorpus(recall(memory));
    const kept = a.outcomes.filter((o, i) => o.returned.every((key) => b.outcomes[i]!.returned.includes(key))).length;
    const sameTop = a.outcomes.filter((o, i) => o.returned[0] === b.outcomes[i]!.returned[0]).length;
    expect(kept / a.outcomes.length).toBeGreaterThanOrEqual(0.95);
    expect(sameTop / a.outcomes.length).toBeGreaterThanOrEqual(0.95);
    expect(b.noHitRate).toBe(1);
    expect(b.recall).toBeGreaterThanOrEqual(a.recall);
    console.info(
      `recall corpus: full-text precision ${a.precision.toFixed(3)} recall ${a.recall.toFixed(3)}; ` +
        `hybrid precision ${b.precision.toFixed(3)} recall ${b.recall.toFixed(3)}; full-text results kept ${kept}/${a.outcomes.length}`,
    );
  });

  test("hybrid recall@5 is at least full-text's, precision@5 at most 5 points lower, on questions answered only by meaning too", async () => {
    await storeCorpus(memory);
    const recall = (m: PgMemory) => async (q: string) => (await m.recall(q, CUTOFF, null, { relevantOnly: true })).map((e) => e.key);
    const scores = await compareHybrid(recall(new PgMemory(storage.sql)), recall(memory));
    expect(scores.hybrid.recall).toBeGreaterThanOrEqual(scores.fullText.recall);
    expect(scores.hybrid.precision).toBeGreaterThanOrEqual(scores.fullText.precision - 0.05);
    expect(scores.hybrid.noHitRate).toBe(1);
    expect(scores.meaning.hybrid.recall).toBeGreaterThan(0.8);
    console.info(`recall corpus on PostgreSQL: ${scores.line}`);
  });
});
