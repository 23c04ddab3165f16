/**
 * memory.backend = "postgres" with pgvector (PGlite + pgvector, see helpers/pglite-server.ts) and embeddings from the
 * fake OpenAI server through the default provider: the shared hybrid suite (hybrid-suite.ts), and what is
 * PostgreSQL's own (the migration, HNSW indexes).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { PgMemory } from "../../src/memory/postgres.ts";
import { detectVectorSupport } from "../../src/memory/postgres-vector.ts";
import { PG_MIGRATIONS, pgStorage, type PgStorage } from "../../src/storage/postgres/index.ts";
import { FAKE_EMBEDDING_DIMENSIONS, startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import { fakeMemoryEmbedder } from "../helpers/fake-embedder.ts";
import { startPglite, type PgliteServer } from "../helpers/pglite-server.ts";
import { CUTOFF, scoreCorpus, storeCorpus } from "../helpers/recall-corpus.ts";
import { hybridSuite } from "./hybrid-suite.ts";

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

hybridSuite("PostgreSQL with pgvector", {
  fake: () => fake,
  hybrid: (options = {}) => new PgMemory(storage.sql, options.embed ?? fakeMemoryEmbedder(fake.url), options.minSimilarity),
  plain: () => new PgMemory(storage.sql),
  embedded: async () =>
    ((await storage.sql.unsafe(
      "SELECT m.key FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id AND m.updated_at = e.revision ORDER BY m.key",
    )) as Array<{ key: string }>).map((r) => r.key),
  waiting: async () => ((await storage.sql.unsafe("SELECT count(*)::int AS n FROM memory_embedding_pending")) as Array<{ n: number }>)[0]!.n,
  clear: async () => void (await storage.sql.unsafe("DELETE FROM memories")),
});

describe("pgvector", () => {
  beforeEach(async () => {
    await storage.sql.unsafe("DELETE FROM memories");
    fake.failEmbeddings(null);
    fake.reset();
  });

  test("the migration added the embeddings table and detection says hybrid", async () => {
    expect(storage.applied).toEqual(PG_MIGRATIONS.map((m) => m.version));
    expect(storage.applied).toContain(PG_MIGRATIONS.find((m) => m.requires === "vector")!.version);
    expect(await detectVectorSupport(storage.sql, true)).toMatchObject({ extension: "installed", recall: "hybrid" });
    expect(await detectVectorSupport(storage.sql, false)).toMatchObject({ extension: "installed", recall: "fts" });
  });

  test("one HNSW index per dimension, made with the first vector of that dimension", async () => {
    await memory.store("k", "indexed", "core");
    const indexes = await storage.sql.unsafe("SELECT indexname FROM pg_indexes WHERE tablename = 'memory_embeddings' AND indexname LIKE '%hnsw%'");
    expect(indexes).toEqual([{ indexname: `memory_embeddings_hnsw_${FAKE_EMBEDDING_DIMENSIONS}` }]);
  });
});

describe("recall corpus with hybrid ranking", () => {
  beforeEach(async () => void (await storage.sql.unsafe("DELETE FROM memories")));
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
});
