/**
 * `memory_terms`, the word counts PostgreSQL recall weighs terms by: kept by the storage's triggers through every
 * write (store, replace, forget, import), equal to counting the GIN index, exact up to PG_MEMORY_TERM_DOCS_KEPT and
 * not written again past it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { PgMemory } from "../../src/memory/postgres.ts";
import { PG_MEMORY_TERM_DOCS_KEPT } from "../../src/storage/limits.ts";
import { pgStorage, type PgStorage } from "../../src/storage/postgres/index.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../helpers/servers.ts";

const schema = uniqueSchema("memwords");
let storage: PgStorage | null = null;
let memory: PgMemory;
const testWithPostgres = await testNeeding("postgres");

beforeAll(async () => {
  if (testWithPostgres !== test) return;
  storage = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 });
  memory = new PgMemory(storage.sql);
});
afterAll(async () => {
  await storage?.close();
  if (storage) await dropSchema(schema);
});

async function kept(lexeme: string): Promise<number | null> {
  const rows = (await storage!.sql.unsafe("SELECT docs FROM memory_terms WHERE lexeme = $1", [lexeme])) as Array<{ docs: number }>;
  return rows[0]?.docs ?? null;
}

async function indexed(lexeme: string): Promise<number> {
  const rows = await storage!.sql.unsafe("SELECT count(*)::int AS n FROM memories WHERE fts @@ ($1)::tsquery", [`'${lexeme}'`]);
  return rows[0].n;
}

testWithPostgres("store, replace, forget and import keep each word's count equal to the index's", async () => {
  await memory.store("a", "the orchid blooms", "core");
  await memory.store("b", "an orchid and a fern", "core");
  expect(await kept("orchid")).toBe(2);
  expect(await kept("bloom")).toBe(1);
  // a replace moves the counts from the old words to the new ones; an unchanged word is not written
  await memory.store("a", "the cactus blooms", "core");
  expect(await kept("orchid")).toBe(1);
  expect(await kept("cactus")).toBe(1);
  expect(await kept("bloom")).toBe(1);
  // a word no entry holds any longer has no row
  await memory.forget("b");
  expect(await kept("orchid")).toBeNull();
  expect(await kept("fern")).toBeNull();
  await memory.catalog.importRecords(
    ["x", "y", "z"].map((key) => ({
      key,
      content: "imported cactus",
      category: "core",
      session_id: "s1",
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-01T00:00:00.000Z",
      private: false,
    })),
  );
  expect(await kept("cactus")).toBe(4);
  expect(await memory.catalog.forgetSession("s1")).toBe(3);
  for (const word of ["cactus", "bloom", "the", "core", "import"]) expect(await kept(word)).toBe(await indexed(word) || null);
});

testWithPostgres("a word is counted exactly up to PG_MEMORY_TERM_DOCS_KEPT; past it its row is not written again", async () => {
  const batch = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      key: `f${from + i}`,
      content: `frequent item${from + i}`,
      category: "core",
      session_id: null,
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-01T00:00:00.000Z",
      private: false,
    }));
  await memory.catalog.importRecords(batch(0, PG_MEMORY_TERM_DOCS_KEPT - 1));
  expect(await kept("frequent")).toBe(PG_MEMORY_TERM_DOCS_KEPT - 1);
  await memory.store(`f${PG_MEMORY_TERM_DOCS_KEPT - 1}`, "frequent item at the limit", "core");
  expect(await kept("frequent")).toBe(PG_MEMORY_TERM_DOCS_KEPT);
  const version = async () => (await storage!.sql.unsafe("SELECT xmin::text AS v FROM memory_terms WHERE lexeme = 'frequent'"))[0].v;
  const before = await version();
  // one past the limit: the row is left alone (no write, no lock a concurrent store would wait for)
  await memory.store("one-past", "frequent item one past", "core");
  expect(await kept("frequent")).toBe(PG_MEMORY_TERM_DOCS_KEPT);
  expect(await version()).toBe(before);
  // a removal from a word at the limit counts it again from the index
  await memory.forget("one-past");
  await memory.forget("f0");
  expect(await kept("frequent")).toBe(PG_MEMORY_TERM_DOCS_KEPT - 1);
  expect(await indexed("frequent")).toBe(PG_MEMORY_TERM_DOCS_KEPT - 1);
}, 120_000);
