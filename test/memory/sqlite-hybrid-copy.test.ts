/**
 * `prx storage copy --from sqlite --to postgres` carries memory's vectors: entries embedded on SQLite are recalled
 * by meaning on PostgreSQL with pgvector (PGlite + pgvector) without being embedded again.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteMemory } from "../../src/memory/index.ts";
import { PgMemory } from "../../src/memory/postgres.ts";
import { SqliteEmbeddings } from "../../src/memory/sqlite-embeddings.ts";
import { openSqliteStorage } from "../../src/storage/index.ts";
import { copySqliteToPg, pgStorage } from "../../src/storage/postgres/index.ts";
import { startFakeOpenAI, type FakeOpenAIServer } from "../fakes/openai-server.ts";
import { fakeMemoryEmbedder } from "../helpers/fake-embedder.ts";
import { startPglite, type PgliteServer } from "../helpers/pglite-server.ts";

setDefaultTimeout(120_000);
const dir = mkdtempSync(join(tmpdir(), "prx-hybrid-recall-copy-"));
let server: PgliteServer;
let fake: FakeOpenAIServer;

beforeAll(async () => {
  server = await startPglite();
  fake = startFakeOpenAI();
});
afterAll(async () => {
  await fake.stop();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("vectors of current entries are copied, their entries leave the queue, and recall by meaning needs no re-embedding", async () => {
  const lite = openSqliteStorage(join(dir, "prx.db"));
  const vectors = await lite.memoryVectors(join(dir, "cache"));
  if ("unavailable" in vectors) throw new Error(vectors.unavailable);
  const sqlite = new SqliteMemory(lite.memory, { vectors, embeddings: new SqliteEmbeddings(vectors, fakeMemoryEmbedder(fake.url)) });
  await sqlite.store("our_gp", "Our physician is Dr Patel", "health");
  await sqlite.store("dentist", "Dentist appointment on Tuesday", "health");
  // a vector of an older text is not carried: the entry waits for one on PostgreSQL
  fake.failEmbeddings(500);
  await sqlite.store("dentist", "Dentist appointment on Wednesday", "health");
  fake.failEmbeddings(null);

  const storage = await pgStorage({ url: server.url, schema: "copied", poolMax: 2 });
  try {
    const report = await copySqliteToPg(lite.db, storage.sql);
    expect(report.find((t) => t.table === "memory_embeddings")).toEqual({ table: "memory_embeddings", read: 1, inserted: 1 });
    const pending = await storage.sql.unsafe("SELECT m.key FROM memory_embedding_pending p JOIN memories m ON m.id = p.memory_id");
    expect(pending).toEqual([{ key: "dentist" }]);
    fake.reset();
    const pg = new PgMemory(storage.sql, fakeMemoryEmbedder(fake.url));
    expect((await pg.recall("who is my doctor", 5, null, { relevantOnly: true })).map((e) => e.key)).toEqual(["our_gp"]);
    // the query alone was embedded
    expect(fake.requests.filter((r) => r.path === "/v1/embeddings").map((r) => (r.body as { input: string[] }).input)).toEqual([["who is my doctor"]]);
    // copied again: nothing new
    expect((await copySqliteToPg(lite.db, storage.sql)).find((t) => t.table === "memory_embeddings")).toEqual({ table: "memory_embeddings", read: 1, inserted: 0 });
  } finally {
    await storage.close();
    await lite.close();
  }
});
