/**
 * The PostgreSQL memory store at a million entries (made in the server with generate_series, the full-text index built
 * after the rows as a bulk load would): recall's statements keep the plans of 10 000 entries (postgres-plans.test.ts),
 * checked with EXPLAIN: word counts are primary-key reads of memory_terms, the ranking reads the GIN index for the
 * sets of terms that reach the score floor, no statement scans the table for a term, and a term held by a quarter of
 * the entries is never read at all.
 * Building the million rows and their index takes a minute or more, so the store is kept in the test database under a
 * name made from what it is built from (the migrations and this file's fill): a later run finds it ready and reads it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { PgMemory } from "../../src/memory/postgres.ts";
import { planForPg, planStatementPg, rankedStatementPg } from "../../src/memory/postgres-recall.ts";
import { PG_MIGRATIONS, pgStorage, type PgStorage } from "../../src/storage/postgres/index.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding } from "../helpers/servers.ts";
import { planNodes } from "../helpers/pg-plan.ts";

const ENTRIES = 1_000_000;
// "common" in every 4th entry, "topic<n>" in 2000 each (500 topics), "rare<n>" in one
const FILL = `INSERT INTO memories (id, key, content, category, created_at, updated_at)
  SELECT 'mem_' || g, 'note-' || g, 'rare' || g || ' entry about topic' || (g % 500) || CASE WHEN g % 4 = 0 THEN ' common' ELSE '' END,
    'core', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'
  FROM generate_series(0, $1 - 1) g`;
const built = Bun.hash(JSON.stringify([PG_MIGRATIONS.map((m) => [m.version, m.sql]), FILL, ENTRIES])).toString(36);
const schema = `prx_fixture_memplans1m_${built}`;
let storage: PgStorage | null = null;
const testWithPostgres = await testNeeding("postgres");

beforeAll(async () => {
  if (testWithPostgres !== test) return;
  storage = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 });
  const sql = storage.sql;
  const found = (await sql.unsafe("SELECT to_regclass('fixture_ready') IS NOT NULL AS ready")) as Array<{ ready: boolean }>;
  if (found[0]?.ready) return;
  // a run stopped half-way left rows behind: start again from an empty store
  await storage.close();
  await dropSchema(schema);
  storage = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 });
  const fresh = storage.sql;
  await fresh.unsafe("DROP INDEX memories_fts");
  await fresh.unsafe(FILL, [ENTRIES]);
  await fresh.unsafe("CREATE INDEX memories_fts ON memories USING GIN (fts) WITH (fastupdate = off)");
  await fresh.unsafe("ANALYZE memories");
  await fresh.unsafe("ANALYZE memory_terms");
  await fresh.unsafe("CREATE TABLE fixture_ready (at TEXT NOT NULL)");
  await fresh.unsafe("INSERT INTO fixture_ready VALUES (now()::text)");
}, 900_000);
afterAll(async () => {
  await storage?.close();
}, 120_000);


testWithPostgres("at a million entries each one-word term's count is a primary-key read of memory_terms", async () => {
  const all = await planNodes(storage!.sql, planStatementPg(["common", "rare17", "topic3"]));
  expect(all.filter((n) => n["Relation Name"] === "memories" && n.Filter !== undefined)).toEqual([]);
  expect(all.filter((n) => n["Index Name"] === "memories_fts")).toEqual([]);
  expect(all.filter((n) => n["Node Type"] === "Index Scan" && n["Index Name"] === "memory_terms_pkey")).toHaveLength(3);
  // the common term (250 000 entries) is known to be past the cap without reading one of its entries
  const { entries, plan } = await planForPg(storage!.sql, ["common", "rare17", "topic3"]);
  expect(Math.abs(entries - ENTRIES) / ENTRIES).toBeLessThan(0.05);
  expect(plan.matching.map((t) => t.term)).toEqual(["rare17", "topic3"]);
}, 60_000);

testWithPostgres("at a million entries the ranking reads the GIN index for the term sets that reach the floor, never the table", async () => {
  const { plan } = await planForPg(storage!.sql, ["rare17", "topic17", "unheardof"]);
  const all = await planNodes(storage!.sql, rankedStatementPg(plan, { limit: 5, includePrivate: false })!);
  expect(all.filter((n) => n["Node Type"] === "Seq Scan")).toEqual([]);
  const gin = all.filter((n) => n["Node Type"] === "Bitmap Index Scan" && n["Index Name"] === "memories_fts");
  expect(gin).toHaveLength(1);
  expect(gin[0]!["Index Cond"]).toContain("&");
  expect(gin[0]!["Index Cond"]).not.toContain("|");
  const memory = new PgMemory(storage!.sql);
  expect((await memory.recall("rare17 topic17 unheardof", 5)).map((e) => e.key)).toEqual(["note-17"]);
  // a single term of 2000 entries: the index's entries for it, ranked; the common word adds nothing to read
  const single = await planNodes(storage!.sql, rankedStatementPg((await planForPg(storage!.sql, ["topic3", "common"])).plan, { limit: 5, includePrivate: false })!);
  expect(single.filter((n) => n["Node Type"] === "Seq Scan")).toEqual([]);
  expect(single.find((n) => n["Index Name"] === "memories_fts")?.["Index Cond"]).not.toContain("common");
}, 60_000);
