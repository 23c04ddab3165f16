/**
 * The PostgreSQL memory store at 10 000 entries: recall's term counts read memory_terms and its ranking the GIN index
 * (checked with EXPLAIN); the store's size is exact up to MEMORY_EXACT_COUNT_MAX and estimated past it; no counter
 * table grows with inserts.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { MEMORY_EXACT_COUNT_MAX, type MemoryRecord } from "../../src/memory/index.ts";
import { PgMemory } from "../../src/memory/postgres.ts";
import { planForPg, planStatementPg, rankedStatementPg } from "../../src/memory/postgres-recall.ts";
import { pgStorage, type PgStorage } from "../../src/storage/postgres/index.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../helpers/servers.ts";
import { planNodes } from "../helpers/pg-plan.ts";

const schema = uniqueSchema("memplans");
let storage: PgStorage | null = null;
let memory: PgMemory;
const testWithPostgres = await testNeeding("postgres");

// "common" is in every 4th entry (2500 of 10 000: past the term count cap), "rare<n>" in one each
const record = (i: number): MemoryRecord => ({
  key: `note-${i}`,
  content: `${i % 4 === 0 ? "common " : ""}rare${i} entry about topic${i % 50}`,
  category: "core",
  session_id: null,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  private: false,
});

beforeAll(async () => {
  if (testWithPostgres !== test) return;
  storage = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 });
  memory = new PgMemory(storage.sql);
  const all = Array.from({ length: MEMORY_EXACT_COUNT_MAX }, (_, i) => record(i));
  for (let i = 0; i < all.length; i += 2500) await memory.catalog.importRecords(all.slice(i, i + 2500));
}, 120_000);
afterAll(async () => {
  await storage?.close();
  if (storage) await dropSchema(schema);
});


testWithPostgres("at 10 000 entries a one-word term's count is a primary-key read of memory_terms, never a scan", async () => {
  const all = await planNodes(storage!.sql, planStatementPg(["common", "rare17", "topic3"]));
  // the one read of memories is the store's size, counted up to MEMORY_EXACT_COUNT_MAX + 1 rows; no term reads it
  expect(all.filter((n) => n["Relation Name"] === "memories" && n.Filter !== undefined)).toEqual([]);
  expect(all.filter((n) => n["Index Name"] === "memories_fts")).toEqual([]);
  expect(all.filter((n) => n["Node Type"] === "Index Scan" && n["Index Name"] === "memory_terms_pkey")).toHaveLength(3);
  // the counts are the triggers' (exact up to the cap), equal to counting the index
  const { plan } = await planForPg(storage!.sql, ["common", "rare17", "topic3"]);
  expect(plan.matching.map((t) => t.term)).toEqual(["rare17", "topic3"]);
});

testWithPostgres("at 10 000 entries the ranked statement reads the GIN index for the sets of terms that reach the floor", async () => {
  // "rare17" alone weighs less than half of a query with a word no entry holds: it needs "topic17" too
  const { plan } = await planForPg(storage!.sql, ["rare17", "topic17", "unheardof"]);
  const statement = rankedStatementPg(plan, { limit: 5, includePrivate: false })!;
  const all = await planNodes(storage!.sql, statement);
  expect(all.filter((n) => n["Node Type"] === "Seq Scan")).toEqual([]);
  const gin = all.filter((n) => n["Node Type"] === "Bitmap Index Scan" && n["Index Name"] === "memories_fts");
  expect(gin).toHaveLength(1);
  expect(gin[0]!["Index Cond"]).toContain("&");
  expect(gin[0]!["Index Cond"]).not.toContain("|");
  expect((await memory.recall("rare17 topic17 unheardof", 5)).map((e) => e.key)).toEqual(["note-17"]);
});

testWithPostgres("the size recall uses is exact at MEMORY_EXACT_COUNT_MAX entries and an estimate past it", async () => {
  const atLimit = await planForPg(storage!.sql, ["rare17"]);
  expect(atLimit.entries).toBe(MEMORY_EXACT_COUNT_MAX);
  expect(atLimit.plan.matching.map((t) => t.term)).toEqual(["rare17"]);
  // one past: counted no further; the planner's estimate (statistics from the import's ANALYZE) gives the size
  await memory.store("one-more", "rare-extra entry", "core");
  const past = await planForPg(storage!.sql, ["rare17"]);
  expect(past.entries).toBeGreaterThanOrEqual(MEMORY_EXACT_COUNT_MAX + 1);
  expect(Math.abs(past.entries - (MEMORY_EXACT_COUNT_MAX + 1)) / (MEMORY_EXACT_COUNT_MAX + 1)).toBeLessThan(0.05);
  expect(await memory.count()).toBe(MEMORY_EXACT_COUNT_MAX + 1);
  // the common term is cut (past the term count cap), the rare one kept: recall unchanged by the estimate
  expect((await memory.recall("common rare17", 5)).map((e) => e.key)).toEqual(["note-17"]);
  await memory.forget("one-more");
});

testWithPostgres("no counter table grows with inserts: the store has no one-row count table and no count trigger", async () => {
  const [counter] = (await storage!.sql.unsafe("SELECT to_regclass('memory_count') IS NULL AS gone")) as Array<{ gone: boolean }>;
  expect(counter!.gone).toBe(true);
  const triggers = (await storage!.sql.unsafe(
    "SELECT tgname FROM pg_trigger WHERE tgrelid = 'memories'::regclass AND NOT tgisinternal",
  )) as Array<{ tgname: string }>;
  expect(triggers.map((t) => t.tgname)).not.toContain("memories_counted");
  const before = (await storage!.sql.unsafe("SELECT pg_total_relation_size('memories') AS s"))[0].s;
  expect(Number(before)).toBeGreaterThan(0);
});
