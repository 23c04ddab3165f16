/**
 * An agent's own memory on every kind of backend: SQLite and PostgreSQL filter by the agent's key prefix in their
 * queries (so many entries of another agent never crowd one's own out of a recall); a backend that cannot (a wasm:
 * one) is filtered after its answer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScopedMemory } from "../../src/agents/index.ts";
import { SqliteMemory, type MemoryBackend, type MemoryEntry, type RecallOptions } from "../../src/memory/index.ts";
import { PgMemory } from "../../src/memory/postgres.ts";
import { openSqliteStorage } from "../../src/storage/index.ts";
import { pgStorage, type PgStorage } from "../../src/storage/postgres/index.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../helpers/servers.ts";

const owners = new Set(["work"]);

/** 30 entries of the work agent that match "report" strongly, one shared entry that matches it weakly. */
async function crowd(inner: MemoryBackend): Promise<void> {
  const work = new ScopedMemory(() => inner, "work", true, owners);
  for (let i = 0; i < 30; i++) await work.store(`report-${i}`, `report report quarterly report number ${i}`, "core");
  await inner.store("note", "a report about the garden", "core");
}

async function expectScoped(inner: MemoryBackend): Promise<void> {
  const main = new ScopedMemory(() => inner, "main", false, owners);
  const work = new ScopedMemory(() => inner, "work", true, owners);
  const shared = await main.recall("report", 5, null, { relevantOnly: true });
  expect(shared.map((e) => e.key)).toEqual(["note"]);
  const own = await work.recall("report", 5, null, { relevantOnly: true });
  expect(own).toHaveLength(5);
  expect(own.every((e) => /^report-\d+$/.test(e.key))).toBe(true);
  // the listing of the most recent entries is scoped too
  expect((await main.recall("", 5)).map((e) => e.key)).toEqual(["note"]);
  expect((await work.recall("", 40)).length).toBe(30);
  // get and forget reach only the agent's own keys
  await expect(main.get("@work/report-1")).rejects.toMatchObject({ code: "MEMORY" });
  await expect(main.forget("@work/report-1")).rejects.toMatchObject({ code: "MEMORY" });
  expect((await work.get("report-1"))?.key).toBe("report-1");
  expect(await work.get("note")).toBeNull();
  expect(await work.forget("report-1")).toBe(true);
  expect(await inner.get("@work/report-1")).toBeNull();
}

describe("sqlite", () => {
  const dir = mkdtempSync(join(tmpdir(), "prx-agents-memory-"));
  const storage = openSqliteStorage(join(dir, "prx.db"));
  afterAll(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("recall is scoped in the query: the shared entry is found under 30 stronger entries of another agent", async () => {
    const inner = new SqliteMemory(() => storage.memory);
    await crowd(inner);
    await expectScoped(inner);
  });
});

describe("postgres", async () => {
  const testWithPostgres = await testNeeding("postgres");
  const schema = uniqueSchema("agents_memory");
  let storage: PgStorage | null = null;
  beforeAll(async () => {
    if (testWithPostgres !== test) return;
    storage = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 });
  });
  afterAll(async () => {
    await storage?.close();
    if (storage) await dropSchema(schema);
  });

  testWithPostgres("recall is scoped in the query, as on SQLite", async () => {
    const inner = new PgMemory(storage!.sql);
    await crowd(inner);
    await expectScoped(inner);
  });
});

/** A backend that ignores key scopes (as a wasm: one does): only its ranking is its own. */
class UnscopedMemory implements MemoryBackend {
  readonly name = "wasm:plain";
  asked: number[] = [];
  constructor(private readonly inner: SqliteMemory) {}
  store(...args: Parameters<MemoryBackend["store"]>) {
    return this.inner.store(...args);
  }
  recall(query: string, limit: number, sessionId?: string | null, options?: RecallOptions): Promise<MemoryEntry[]> {
    this.asked.push(limit);
    const { keys: _ignored, ...rest } = options ?? {};
    return this.inner.recall(query, limit, sessionId, rest);
  }
  get(key: string) {
    return this.inner.get(key);
  }
  forget(key: string) {
    return this.inner.forget(key);
  }
  count() {
    return this.inner.count();
  }
  health() {
    return this.inner.health();
  }
}

describe("a backend that cannot scope by key", () => {
  const dir = mkdtempSync(join(tmpdir(), "prx-agents-memory-"));
  const storage = openSqliteStorage(join(dir, "prx.db"));
  afterAll(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("is asked for more and filtered: another agent's entries never come back", async () => {
    const plain = new UnscopedMemory(new SqliteMemory(() => storage.memory));
    const work = new ScopedMemory(() => plain, "work", true, owners);
    const main = new ScopedMemory(() => plain, "main", false, owners);
    await work.store("plan", "the secret launch plan", "core");
    await plain.store("lunch", "the launch plan of the lunch is at noon", "core");
    const shared = await main.recall("launch plan", 5, null, { relevantOnly: true });
    expect(shared.map((e) => e.key)).toEqual(["lunch"]);
    expect(plain.asked.at(-1)).toBe(20);
    expect((await work.recall("launch plan", 5, null, { relevantOnly: true })).map((e) => e.key)).toEqual(["plan"]);
  });
});
