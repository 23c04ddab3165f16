/**
 * Storage migration 3 (memory embeddings) exists only where pgvector is: applied once on PGlite + pgvector, skipped
 * without error on the machine's PostgreSQL (no pgvector), where memory with an embedding provider stays full-text.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { MEMORY_VECTOR_INDEX_MAX_DIMENSIONS, MEMORY_VECTOR_MAX_DIMENSIONS } from "../../src/memory/index.ts";
import { PgMemory } from "../../src/memory/postgres.ts";
import { hnswIndexSql } from "../../src/memory/postgres-embeddings.ts";
import { detectVectorSupport } from "../../src/memory/postgres-vector.ts";
import { PG_MIGRATIONS, pgStorage } from "../../src/storage/postgres/index.ts";
import { startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import { fakeMemoryEmbedder } from "../helpers/fake-embedder.ts";
import { startPglite, type PgliteServer } from "../helpers/pglite-server.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../helpers/servers.ts";

setDefaultTimeout(60_000);
let fake: FakeOpenAIServer;
beforeAll(() => void (fake = startFakeOpenAI()));
afterAll(() => fake.stop());

describe("on PGlite + pgvector", () => {
  let server: PgliteServer;
  beforeAll(async () => void (server = await startPglite()));
  afterAll(() => server.stop());

  test("two openers at once: every migration, the vector one included, is applied once; a later open applies none", async () => {
    const opened = await Promise.all([0, 1].map(() => pgStorage({ url: server.url, schema: "prx", poolMax: 2 })));
    expect(opened.flatMap((s) => s.applied).sort((a, b) => a - b)).toEqual(PG_MIGRATIONS.map((m) => m.version));
    const again = await pgStorage({ url: server.url, schema: "prx", poolMax: 2 });
    expect(again.applied).toEqual([]);
    expect((await again.status()).pending).toEqual([]);
    const ledger = await again.sql.unsafe("SELECT version FROM prx_migrations WHERE version = 3");
    expect(ledger).toEqual([{ version: 3 }]);
    await Promise.all([...opened, again].map((s) => s.close()));
  });

  test(`vectors of up to ${MEMORY_VECTOR_MAX_DIMENSIONS} numbers are stored; one more is refused and the entry stays`, async () => {
    const storage = await pgStorage({ url: server.url, schema: "dims", poolMax: 2 });
    let dims = MEMORY_VECTOR_MAX_DIMENSIONS;
    const memory = new PgMemory(storage.sql, async (input) => ({
      model: "wide",
      embeddings: input.map(() => Array.from({ length: dims }, (_, i) => (i === 0 ? 1 : 0))),
    }));
    await memory.store("at", "at the limit", "core");
    dims = MEMORY_VECTOR_MAX_DIMENSIONS + 1;
    await memory.store("past", "one past the limit", "core");
    const rows = await storage.sql.unsafe("SELECT m.key, e.dims FROM memories m LEFT JOIN memory_embeddings e ON e.memory_id = m.id ORDER BY m.key");
    expect(rows).toEqual([
      { key: "at", dims: MEMORY_VECTOR_MAX_DIMENSIONS },
      { key: "past", dims: null },
    ]);
    await storage.close();
  });
});

test(`an HNSW index up to ${MEMORY_VECTOR_INDEX_MAX_DIMENSIONS} dimensions, an exact scan past it`, () => {
  expect(hnswIndexSql(MEMORY_VECTOR_INDEX_MAX_DIMENSIONS)).toContain(`vector(${MEMORY_VECTOR_INDEX_MAX_DIMENSIONS})) vector_cosine_ops`);
  expect(hnswIndexSql(MEMORY_VECTOR_INDEX_MAX_DIMENSIONS + 1)).toBeNull();
  expect(hnswIndexSql(0)).toBeNull();
});

const testWithPostgres = await testNeeding("postgres");

testWithPostgres("a server without pgvector: no vector migration, no pending one, memory with embeddings recalls by full-text search", async () => {
  const schema = uniqueSchema("novector");
  const opened = await Promise.all([0, 1].map(() => pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 })));
  try {
    const sql = opened[0]!.sql;
    const support = await detectVectorSupport(sql, true);
    if (support.extension !== "absent") return console.warn("SKIP: this PostgreSQL offers pgvector; the no-pgvector case needs one without");
    const withoutVector = PG_MIGRATIONS.filter((m) => m.requires !== "vector").map((m) => m.version);
    expect(opened.flatMap((s) => s.applied).sort((a, b) => a - b)).toEqual(withoutVector);
    const latest = Math.max(...withoutVector);
    expect(await opened[0]!.status()).toMatchObject({ pending: [], latest, version: latest });
    expect(support.recall).toBe("fts");
    fake.reset();
    const memory = new PgMemory(sql, fakeMemoryEmbedder(fake.url));
    await memory.store("v", "words still match without vectors", "core");
    expect((await memory.recall("words match", 5)).map((h) => h.key)).toEqual(["v"]);
    expect(fake.requests.filter((r) => r.path === "/v1/embeddings")).toEqual([]);
  } finally {
    await Promise.all(opened.map((s) => s.close()));
    await dropSchema(schema);
  }
});
