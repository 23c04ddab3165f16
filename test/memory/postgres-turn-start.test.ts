/**
 * Auto-recall on PostgreSQL answers "nothing" for a store its turn's lease start found empty (prx_turn_start,
 * memory-presence.ts) without a statement of its own, and across processes never misses a memory stored before the
 * turn began: two storages on one schema stand for two replicas, a bare pool for a `prx memory` command.
 */
import type { SQL } from "bun";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { PgMemory } from "../../src/memory/postgres.ts";
import type { MemoryEntry, RecallOptions } from "../../src/memory/types.ts";
import { openPg } from "../../src/storage/postgres/connect.ts";
import { pgStorage, type PgStorage } from "../../src/storage/postgres/index.ts";
import { PgMemoryPresence } from "../../src/storage/postgres/memory-presence.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../helpers/servers.ts";

const schema = uniqueSchema("turnstart");
const HISTORY_LIMIT = 50;
const AUTO_RECALL: RecallOptions = { includePrivate: false, relevantOnly: true };
const QUERY = "when does the orchid bloom";
const testWithPostgres = await testNeeding("postgres");

interface Replica {
  storage: PgStorage;
  memory: PgMemory;
  /** Statements sent on the storage's pool (the lease's own pool not included). */
  statements: string[];
}

let a: Replica;
let b: Replica;
let bare: SQL | null = null;
let command: PgMemory;

async function replica(): Promise<Replica> {
  const storage = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2 });
  const statements: string[] = [];
  const unsafe = storage.sql.unsafe.bind(storage.sql);
  // observes what reaches the pool; the statements still run
  storage.sql.unsafe = ((text: string, params?: unknown[]) => (statements.push(text), unsafe(text, params))) as typeof storage.sql.unsafe;
  return { storage, memory: new PgMemory(storage.sql, undefined, undefined, storage.memoryPresence), statements };
}

beforeAll(async () => {
  if (testWithPostgres !== test) return;
  a = await replica();
  b = await replica();
  bare = openPg({ url: TEST_DATABASE_URL, schema, max: 1 });
  command = new PgMemory(bare);
});
afterAll(async () => {
  await a?.storage.close();
  await b?.storage.close();
  await bare?.close();
  if (a) await dropSchema(schema);
});

/**
 * A turn's store calls as the agent makes them under the session's lease: history and summary, `during` (what else
 * happens before the recall), auto-recall, the user's message, the reply ending the turn. Returns what was recalled
 * and the statements the recall sent on the pool.
 */
async function turn(
  on: Replica,
  session: string,
  during: () => Promise<unknown> = async () => {},
  options: RecallOptions = AUTO_RECALL,
): Promise<{ recalled: string[]; statements: number }> {
  return on.storage.leases!.hold(session, async () => {
    await on.storage.sessions.history(session, HISTORY_LIMIT);
    await on.storage.sessions.summary(session);
    await during();
    const before = on.statements.length;
    const found: MemoryEntry[] = await on.memory.recall(QUERY, 5, session, options);
    const statements = on.statements.length - before;
    await on.storage.sessions.append(session, [{ role: "user", content: QUERY }], { channel: "test" });
    await on.storage.sessions.append(session, [{ role: "assistant", content: "noted" }], { endsTurn: true });
    return { recalled: found.map((entry) => entry.key), statements };
  });
}

testWithPostgres("on an empty store a turn's auto-recall sends no statement; a memory stored anywhere is recalled by the next turn on every replica", async () => {
  // a process's first lease reads no history with the lock (it has not seen the limit yet): recall plans as before
  expect(await turn(a, "s1")).toEqual({ recalled: [], statements: 1 });
  await turn(b, "s2");
  expect(await turn(a, "s1")).toEqual({ recalled: [], statements: 0 });
  expect(await turn(b, "s2")).toEqual({ recalled: [], statements: 0 });

  await b.memory.store("orchid", "the orchid blooms in spring", "core");
  expect((await turn(a, "s1")).recalled).toEqual(["orchid"]);
  expect((await turn(b, "s2")).recalled).toEqual(["orchid"]);
  expect((await turn(a, "s3")).recalled).toEqual(["orchid"]);

  // emptied by another process: the next turns know it at their lease start again
  expect(await command.forget("orchid")).toBe(true);
  expect(await turn(a, "s1")).toEqual({ recalled: [], statements: 0 });

  // stored by a process with no storage of its own (a `prx memory store` command)
  await command.store("orchid", "the orchid blooms in spring", "core");
  expect((await turn(a, "s1")).recalled).toEqual(["orchid"]);
  expect((await turn(b, "s2")).recalled).toEqual(["orchid"]);
  await command.forget("orchid");
});

testWithPostgres("a memory this process stores while a turn holds its lease is recalled by that turn", async () => {
  await turn(a, "s4");
  expect(await turn(a, "s4")).toEqual({ recalled: [], statements: 0 });
  const own = await turn(a, "s4", () => a.memory.store("orchid", "the orchid blooms in spring", "core"));
  expect(own.recalled).toEqual(["orchid"]);
  await a.memory.forget("orchid");
  // an import is a write too
  const imported = await turn(a, "s4", () =>
    a.memory.catalog.importRecords([
      {
        key: "orchid",
        content: "the orchid blooms in spring",
        category: "core",
        private: false,
        session_id: null,
        created_at: "2026-01-01T00:00:00.000Z",
        updated_at: "2026-01-01T00:00:00.000Z",
      },
    ]),
  );
  expect(imported.recalled).toEqual(["orchid"]);
  await a.memory.forget("orchid");
});

testWithPostgres("what the lease start read serves only auto-recall before the session's first write", async () => {
  await turn(b, "s5");
  const storeElsewhere = () => command.store("orchid", "the orchid blooms in spring", "core");
  // a search that is not auto-recall (the memory_recall tool) asks the database
  const searched = await turn(b, "s5", storeElsewhere, { includePrivate: false });
  expect(searched.recalled).toEqual(["orchid"]);
  await command.forget("orchid");
  // once the turn wrote its session, the start's answer is stale
  const written = await turn(b, "s5", async () => {
    await storeElsewhere();
    await b.storage.sessions.append("s5", [{ role: "user", content: QUERY }], { channel: "test" });
  });
  expect(written.recalled).toEqual(["orchid"]);
  await command.forget("orchid");
  // a second auto-recall in one turn asks the database
  const twice = await turn(b, "s5", async () => {
    expect(await b.memory.recall(QUERY, 5, "s5", AUTO_RECALL)).toEqual([]);
    await storeElsewhere();
  });
  expect(twice.recalled).toEqual(["orchid"]);
  await command.forget("orchid");
});

test("a lease start sent before a memory write of this process does not record the store as empty", () => {
  const presence = new PgMemoryPresence();
  const sent = presence.generation;
  presence.written();
  presence.seen("s", false, sent);
  expect(presence.takeEmpty("s")).toBe(false);
  presence.seen("s", false, presence.generation);
  expect(presence.takeEmpty("s")).toBe(true);
  expect(presence.takeEmpty("s")).toBe(false);
  presence.seen("s", null, presence.generation);
  expect(presence.takeEmpty("s")).toBe(false);
});
