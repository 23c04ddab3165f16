/**
 * memory.backend = "postgres": the same behaviour as the SQLite backend (stores, scopes, privacy, limits, catalog),
 * and the labelled recall corpus ranked the same way.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { isPrxError } from "../../src/core/errors.ts";
import { MEMORY_MAX_KEY_BYTES, MEMORY_MAX_RECALL_LIMIT, SqliteMemory, type MemoryRecord } from "../../src/memory/index.ts";
import { PgMemory } from "../../src/memory/postgres.ts";
import { SqliteMemoryStore } from "../../src/storage/sqlite/memory.ts";
import { detectVectorSupport } from "../../src/memory/postgres-vector.ts";
import { pgStorage, type PgStorage } from "../../src/storage/postgres/index.ts";
import { CUTOFF, scoreCorpus, storeCorpus } from "../helpers/recall-corpus.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../helpers/servers.ts";

const schema = uniqueSchema("memory");
let storage: PgStorage | null = null;
let memory: PgMemory;
const testWithPostgres = await testNeeding("postgres");

beforeAll(async () => {
  if (testWithPostgres !== test) return;
  storage = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 4 });
  memory = new PgMemory(storage.sql);
});
afterAll(async () => {
  await storage?.close();
  if (storage) await dropSchema(schema);
});
beforeEach(async () => {
  await storage?.sql.unsafe("DELETE FROM memories");
});

const it = (name: string, body: () => Promise<void>) => testWithPostgres(name, body);

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(isPrxError(caught, code as never)).toBe(true);
}

describe("PgMemory", () => {
  it("store, get, replace keeps one row; forget and count", async () => {
    await memory.store("k", "first text", "core");
    const first = (await memory.get("k"))!;
    await memory.store("k", "second text", "notes", "s1");
    const second = (await memory.get("k"))!;
    expect(second).toMatchObject({ key: "k", content: "second text", category: "notes", session_id: "s1", private: false });
    expect(second.id).toBe(first.id);
    expect(await memory.count()).toBe(1);
    expect(await memory.forget("k")).toBe(true);
    expect(await memory.forget("k")).toBe(false);
    expect(await memory.count()).toBe(0);
    expect(await memory.health()).toBe(true);
  });

  it("recall ranks by the share of the query matched, with stemming; scores are shares in (0, 1]", async () => {
    await memory.store("espresso", "I drink espresso every morning", "prefs");
    await memory.store("tea", "Green tea in the afternoon", "prefs");
    await memory.store("both", "Espresso after lunch, green tea later", "prefs");
    const hits = await memory.recall("espresso and green tea", 5);
    expect(hits[0]!.key).toBe("both");
    expect(hits[0]!.score).toBeCloseTo(1, 6);
    for (const h of hits) expect(h.score!).toBeGreaterThan(0);
    expect((await memory.recall("drinking", 5)).map((h) => h.key)).toEqual(["espresso"]);
  });

  it("session scoping: that session plus global entries; private entries only when asked", async () => {
    await memory.store("g", "the garden needs water", "core");
    await memory.store("a", "garden plan for session a", "core", "a");
    await memory.store("b", "garden plan for session b", "core", "b");
    await memory.store("p", "garden secret", "core", null, { private: true });
    const keys = async (session: string | null, includePrivate = false) =>
      (await memory.recall("garden", 10, session, { includePrivate })).map((h) => h.key).sort();
    expect(await keys("a")).toEqual(["a", "g"]);
    expect(await keys(null)).toEqual(["a", "b", "g"]);
    expect(await keys(null, true)).toEqual(["a", "b", "g", "p"]);
    expect((await memory.get("p"))!.private).toBe(true);
  });

  it("stop words alone match nothing; punctuation lists the most recent; hostile syntax is plain text", async () => {
    await memory.store("one", "alpha", "core");
    await Bun.sleep(2);
    await memory.store("two", "beta", "core");
    expect(await memory.recall("what is my", 5)).toEqual([]);
    expect((await memory.recall("?!", 5)).map((h) => h.key)).toEqual(["two", "one"]);
    expect(await memory.recall("?!", 5, null, { relevantOnly: true })).toEqual([]);
    for (const q of ["alpha & !beta", "alpha:*", "'alpha' | beta", "(alpha", "NEAR(alpha beta)", "\\x00 ; DROP TABLE memories"]) {
      await memory.recall(q, 5);
    }
    expect(await memory.count()).toBe(2);
  });

  it("limits: key at the maximum passes, one past fails; recall limit likewise", async () => {
    await memory.store("k".repeat(MEMORY_MAX_KEY_BYTES), "x", "core");
    await rejectsWith(memory.store("k".repeat(MEMORY_MAX_KEY_BYTES + 1), "x", "core"), "LIMIT_EXCEEDED");
    for (let i = 0; i < MEMORY_MAX_RECALL_LIMIT + 5; i++) await memory.store(`k${i}`, `common word ${i}`, "core");
    expect(await memory.recall("", MEMORY_MAX_RECALL_LIMIT)).toHaveLength(MEMORY_MAX_RECALL_LIMIT);
    await rejectsWith(memory.recall("common", MEMORY_MAX_RECALL_LIMIT + 1), "LIMIT_EXCEEDED");
  });

  it("catalog: list with total and category, records in order, import all-or-nothing with counts, forget a session", async () => {
    await memory.store("a", "apple", "fruit", "s1");
    await memory.store("b", "bean", "veg");
    const page = await memory.catalog.list({ limit: 1, offset: 0 });
    expect(page.total).toBe(2);
    expect(page.entries.map((e) => e.key)).toEqual(["b"]);
    expect((await memory.catalog.list({ limit: 10, offset: 0, category: "fruit" })).total).toBe(1);
    const records: MemoryRecord[] = [];
    for await (const r of memory.catalog.records()) records.push(r);
    expect(records.map((r) => r.key)).toEqual(["a", "b"]);
    const incoming: MemoryRecord = { ...records[1]!, content: "broad bean" };
    const fresh: MemoryRecord = { ...records[1]!, key: "c", content: "carrot" };
    expect(await memory.catalog.importRecords([incoming, fresh])).toEqual({ created: 1, replaced: 1 });
    expect((await memory.get("b"))!.content).toBe("broad bean");
    expect(await memory.catalog.forgetSession("s1")).toBe(1);
    expect(await memory.count()).toBe(2);
  });
});

describe("recall corpus on PostgreSQL", () => {
  it(`ranks the 200 notes like the SQLite path: the same top ${CUTOFF} for at least 95 % of the queries, scores within 2 points`, async () => {
    const db = new Database(":memory:");
    const lite = new SqliteMemory(() => new SqliteMemoryStore(db));
    await storeCorpus(lite);
    await storeCorpus(memory);
    const recall = (m: SqliteMemory | PgMemory) => async (q: string) =>
      (await m.recall(q, CUTOFF, null, { relevantOnly: true })).map((e) => e.key);
    const a = await scoreCorpus(recall(lite));
    const b = await scoreCorpus(recall(memory));
    const sameSet = a.outcomes.filter((o, i) => [...o.returned].sort().join() === [...b.outcomes[i]!.returned].sort().join()).length;
    expect(sameSet / a.outcomes.length).toBeGreaterThanOrEqual(0.95);
    expect(Math.abs(a.precision - b.precision)).toBeLessThanOrEqual(0.02);
    expect(Math.abs(a.recall - b.recall)).toBeLessThanOrEqual(0.02);
    expect(b.noHitRate).toBe(1);
    db.close();
  });
});

describe("pgvector detection", () => {
  it("agrees with the server's extension catalog; without embeddings recall is full-text search", async () => {
    const support = await detectVectorSupport(storage!.sql);
    const catalog = await storage!.sql.unsafe("SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'vector'");
    expect(support.extension === "absent").toBe(catalog[0].n === 0);
    expect(support.recall).toBe("fts");
    await memory.store("v", "vectors or not, words still match", "core");
    expect((await memory.recall("words match", 5)).map((h) => h.key)).toEqual(["v"]);
  });
});
