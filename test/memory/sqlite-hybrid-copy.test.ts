/**
 * `prx storage copy` carries memory's vectors both ways: entries embedded on SQLite are recalled by meaning on
 * PostgreSQL with pgvector (PGlite + pgvector) without being embedded again, and back.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteMemory } from "../../src/memory/index.ts";
import { PgMemory } from "../../src/memory/postgres.ts";
import { SqliteEmbeddings } from "../../src/memory/sqlite-embeddings.ts";
import { openSqliteStorage } from "../../src/storage/index.ts";
import { copyPgToSqlite, copySqliteToPg, pgStorage } from "../../src/storage/postgres/index.ts";
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
  const sqlite = new SqliteMemory(() => lite.memory, { vectors, embeddings: new SqliteEmbeddings(vectors, fakeMemoryEmbedder(fake.url)) });
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

test("the other way: PostgreSQL's tables and current vectors into a new workspace database, recalled by meaning there", async () => {
  // the same schema as above: PGlite is one backend, whose search_path the connections of two schemas would share
  const storage = await pgStorage({ url: server.url, schema: "copied", poolMax: 2 });
  const lite = openSqliteStorage(join(dir, "back.db"));
  try {
    await storage.sql.unsafe("DELETE FROM memories");
    const pg = new PgMemory(storage.sql, fakeMemoryEmbedder(fake.url));
    await pg.store("our_gp", "Our physician is Dr Patel", "health");
    await pg.store("secret", "Private physician: Dr Novak", "health", null, { private: true });
    await storage.sql.unsafe(
      `INSERT INTO gateway_tokens (id, name, token_sha256, created_at, revoked) VALUES ('tok_1', 'ci', 'abc', '2026-01-01T00:00:00Z', true);
       INSERT INTO plugin_kv (plugin, key, value) VALUES ('p', 'k', '\\x00ff'::bytea);
       INSERT INTO usage_totals (kind, key, day, input_tokens, output_tokens, cached_input_tokens, cost_usd, calls)
         VALUES ('all', '', '2026-01-01', 9007199254740991, 2, 0, 0.5, 3)`,
    );
    const report = await copyPgToSqlite(storage.sql, lite.db);
    expect(report.find((t) => t.table === "memories")).toEqual({ table: "memories", read: 2, inserted: 2 });
    expect(report.find((t) => t.table === "memory_vectors")).toEqual({ table: "memory_vectors", read: 2, inserted: 2 });
    expect(lite.db.query("SELECT revoked FROM gateway_tokens").all()).toEqual([{ revoked: 1 }]);
    expect(lite.db.query("SELECT hex(value) AS v FROM plugin_kv").all()).toEqual([{ v: "00FF" }]);
    expect(lite.db.query("SELECT input_tokens, calls FROM usage_totals").all()).toEqual([{ input_tokens: 9007199254740991, calls: 3 }]);
    expect(lite.db.query("SELECT key, private FROM memories ORDER BY key").all()).toEqual([{ key: "our_gp", private: 0 }, { key: "secret", private: 1 }]);

    const vectors = await lite.memoryVectors(join(dir, "cache"));
    if ("unavailable" in vectors) throw new Error(vectors.unavailable);
    expect(vectors.counts()).toEqual({ vectors: 2, pending: 0 });
    fake.reset();
    const sqlite = new SqliteMemory(() => lite.memory, { vectors, embeddings: new SqliteEmbeddings(vectors, fakeMemoryEmbedder(fake.url)) });
    expect((await sqlite.recall("who is my doctor", 5, null, { relevantOnly: true })).map((e) => e.key)).toEqual(["our_gp"]);
    expect(fake.requests.filter((r) => r.path === "/v1/embeddings")).toHaveLength(1);
    // copied again: nothing new
    const again = await copyPgToSqlite(storage.sql, lite.db);
    expect(again.every((t) => t.inserted === 0)).toBe(true);
  } finally {
    await lite.close();
    await storage.close();
  }
});
