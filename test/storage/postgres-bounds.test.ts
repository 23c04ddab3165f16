/**
 * PostgreSQL-only behaviour at its bounds: the session lease (one turn per session across processes, waiting at
 * most the lease wait; its connections kept between turns until unused for LEASE_CONNECTION_KEEP_MS) and the
 * verified-token cache (a revocation by another replica counts within TOKEN_CACHE_TTL_MS, requests arriving
 * together share one lookup, and it holds at most TOKEN_CACHE_MAX_ENTRIES tokens).
 */
import type { ReservedSQL } from "bun";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { isPrxError } from "../../src/core/errors.ts";
import { TOKEN_CACHE_MAX_ENTRIES, TOKEN_CACHE_TTL_MS } from "../../src/storage/index.ts";
import { pgStorage, type PgStorage } from "../../src/storage/postgres/index.ts";
import { PgTokenStore } from "../../src/storage/postgres/tokens.ts";
import { openPg } from "../../src/storage/postgres/connect.ts";
import { LEASE_CONNECTION_KEEP_MS, LeaseConnections, type LeaseConnection } from "../../src/storage/postgres/lease-connections.ts";
import { fakeTimers } from "../helpers/fake-timers.ts";
import { dropSchema, TEST_DATABASE_URL, testNeeding, uniqueSchema } from "../helpers/servers.ts";

const schema = uniqueSchema("bounds");
const LEASE_WAIT_MS = 300;
let now = 1_700_000_000_000;
let a: PgStorage | null = null;
let b: PgStorage | null = null;
const testWithPostgres = await testNeeding("postgres");

beforeAll(async () => {
  if (testWithPostgres !== test) return;
  // two processes' worth of stores on one schema
  a = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2, leaseWaitMs: LEASE_WAIT_MS, now: () => now });
  b = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 2, leaseWaitMs: LEASE_WAIT_MS, now: () => now });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  if (a) await dropSchema(schema);
});

const it = (name: string, body: (a: PgStorage, b: PgStorage) => Promise<void>) => testWithPostgres(name, () => body(a!, b!));

it("one holder per session across processes: the second waits for the first, other sessions do not", async (a, b) => {
  const order: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const first = a.leases!.hold("s", async () => {
    order.push("a in");
    await held;
    order.push("a out");
  });
  await Bun.sleep(20);
  const second = b.leases!.hold("s", async () => void order.push("b in"));
  const other = await b.leases!.hold("t", async () => "other session ran");
  expect(other).toBe("other session ran");
  await Bun.sleep(20);
  expect(order).toEqual(["a in"]);
  release();
  await Promise.all([first, second]);
  expect(order).toEqual(["a in", "a out", "b in"]);
});

it(`a turn waiting longer than the lease wait (${LEASE_WAIT_MS} ms here) fails with STORAGE_LEASE; the holder is unaffected`, async (a, b) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const first = a.leases!.hold("busy", () => held);
  await Bun.sleep(20);
  let caught: unknown = null;
  try {
    await b.leases!.hold("busy", async () => "never");
  } catch (error) {
    caught = error;
  }
  expect(isPrxError(caught, "STORAGE_LEASE")).toBe(true);
  release();
  await first;
  expect(await b.leases!.hold("busy", async () => "free again")).toBe("free again");
});

it("a lease reads the session's history with its lock: after the other process's last write, and never after a write here", async (a, b) => {
  const contents = (messages: { content: string }[]) => messages.map((m) => m.content);
  const id = `prefetch-${schema}`; // advisory locks are per database: an id no other test's sessions use
  await a.sessions.append(id, [{ role: "user", content: "one" }], { channel: "cli" });
  await b.sessions.history(id, 10); // the limit b's leases read with
  await a.leases!.hold(id, async () => {
    expect(contents(await a.sessions.history(id, 10))).toEqual(["one"]);
    await a.sessions.append(id, [{ role: "assistant", content: "two" }]);
  });
  const HELD = "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND objid = hashtext($1)::oid";
  // wait for a's unlock (it is not awaited by the holder) so b takes the lock at its first try
  for (let i = 0; i < 200 && (await b.sql.unsafe(HELD, [id]))[0].n > 0; i++) await Bun.sleep(10);
  await b.leases!.hold(id, async () => {
    // a writer outside any lease (as `prx storage copy` is) after b's lock: the turn's history is the one read with it
    await a.sql.unsafe("INSERT INTO session_messages (session_id, seq, role, content, created_at) VALUES ($1, 3, 'user', 'outside', '')", [id]);
    expect(contents(await b.sessions.history(id, 10))).toEqual(["one", "two"]);
    expect(contents(await b.sessions.history(id, 10))).toEqual(["one", "two", "outside"]);
    await b.sessions.append(id, [{ role: "assistant", content: "four" }]);
    expect(contents(await b.sessions.history(id, 10))).toEqual(["one", "two", "outside", "four"]);
  });
  await b.leases!.hold(id, async () => {
    await b.sessions.append(id, [{ role: "user", content: "five" }]);
    expect(contents(await b.sessions.history(id, 10)).at(-1)).toBe("five");
  });
});

it("a lease reads the session's newest summary with its history: the one before the lock, never one older than a write", async (a, b) => {
  const id = `summary-${schema}`;
  const waitUnlocked = async () => {
    const HELD = "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND objid = hashtext($1)::oid";
    for (let i = 0; i < 200 && (await b.sql.unsafe(HELD, [id]))[0].n > 0; i++) await Bun.sleep(10);
  };
  await a.sessions.append(id, [{ role: "user", content: "one" }, { role: "assistant", content: "two" }], { channel: "cli" });
  await b.sessions.history(id, 10); // the limit b's leases read with
  // no summary yet: the read with the lock says so, and the history is every message
  await b.leases!.hold(id, async () => {
    expect((await b.sessions.history(id, 10)).map((m) => m.content)).toEqual(["one", "two"]);
    expect(await b.sessions.summary(id)).toBeNull();
  });
  await waitUnlocked();
  await a.sessions.addSummary(id, { fromSeq: 1, throughSeq: 1, content: "one, summarised", model: "m" });
  await a.sessions.append(id, [{ role: "user", content: "three" }]);
  await b.leases!.hold(id, async () => {
    // another writer after the lock: the turn's reads are the ones made with it, a second read sees the write
    await a.sessions.addSummary(id, { fromSeq: 1, throughSeq: 2, content: "one and two, summarised", model: "m" });
    expect((await b.sessions.history(id, 10)).map((m) => m.content)).toEqual(["two", "three"]);
    const summary = await b.sessions.summary(id);
    expect(summary).toMatchObject({ fromSeq: 1, throughSeq: 1, content: "one, summarised", model: "m" });
    expect(summary).toEqual((await a.sessions.summaries(id))[0]!);
    expect((await b.sessions.summary(id))?.throughSeq).toBe(2);
    // a summary written here drops what the lease read
    await b.sessions.addSummary(id, { fromSeq: 1, throughSeq: 3, content: "all", model: "m" });
    expect((await b.sessions.summary(id))?.throughSeq).toBe(3);
  });
  await waitUnlocked();
  // the summary is taken before the history (the order is the caller's)
  await b.leases!.hold(id, async () => {
    expect((await b.sessions.summary(id))?.content).toBe("all");
    expect(await b.sessions.history(id, 10)).toEqual([]);
  });
});

it("a lease whose history read fails after its lock was taken fails with STORAGE and leaves no lock behind", async (a, b) => {
  const id = `failed-start-${schema}`;
  await a.sessions.append(id, [{ role: "user", content: "one" }], { channel: "cli" });
  await b.sessions.history(id, 10); // b's leases read the history with the lock
  await b.sql.unsafe("ALTER TABLE session_summaries RENAME TO session_summaries_away");
  let failure: unknown;
  try {
    await b.leases!.hold(id, async () => undefined);
  } catch (error) {
    failure = error;
  } finally {
    await b.sql.unsafe("ALTER TABLE session_summaries_away RENAME TO session_summaries");
  }
  expect(isPrxError(failure) && failure.code).toBe("STORAGE");
  // the connection that took the lock is closed, not reused: the lock goes with it (closing is not awaited)
  const HELD = "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND objid = hashtext($1)::oid";
  for (let i = 0; i < 200 && (await b.sql.unsafe(HELD, [id]))[0].n > 0; i++) await Bun.sleep(10);
  expect(await a.leases!.hold(id, async () => (await a.sessions.history(id, 10)).map((m) => m.content))).toEqual(["one"]);
});

it("a session's writes under its lease go on the lease's connection: they never wait for the store's pool", async (a) => {
  const id = `own-conn-${schema}`;
  // every connection of a's store pool (poolMax 2) taken elsewhere
  const taken = [await a.sql.reserve(), await a.sql.reserve()];
  try {
    await a.leases!.hold(id, async () => {
      await a.sessions.append(id, [{ role: "user", content: "while the pool is busy" }], { channel: "cli" });
      await a.sessions.append(id, [{ role: "assistant", content: "still written" }]);
    });
  } finally {
    for (const conn of taken) conn.release();
  }
  // the lease ended: the session's writes take the pool again
  await a.sessions.append(id, [{ role: "user", content: "after" }]);
  expect((await a.sessions.history(id, 10)).map((m) => m.content)).toEqual(["while the pool is busy", "still written", "after"]);
});

/** The internals of a store's leases the tests below reach: its connections, the session's lease connection. */
type LeaseInternals = {
  connections: { acquire(): Promise<{ conn: ReservedSQL; fresh: boolean }> };
  prefetch: { connection(id: string): ReservedSQL | undefined };
};

/** The lease's connection's statements of `storage`, recorded on their way (the leases' connections are wrapped). */
function recordLeaseStatements(storage: PgStorage): { texts: string[]; restore(): void } {
  const connections = (storage.leases as unknown as LeaseInternals).connections;
  const acquire = connections.acquire;
  const texts: string[] = [];
  connections.acquire = async () => {
    const taken = await acquire.call(connections);
    const conn = new Proxy(taken.conn, {
      get(c, name) {
        if (name !== "unsafe") return Reflect.get(c, name);
        return (text: string, params?: unknown[]) => (texts.push(text), c.unsafe(text, params));
      },
    });
    return { ...taken, conn };
  };
  return { texts, restore: () => (connections.acquire = acquire) };
}

it("a turn's last append is written with the unlock in one statement: every row, in order, the lease free", async (a, b) => {
  const id = `turn-end-${schema}`;
  await a.sessions.history(id, 10); // a history read seen: leases read it with their lock
  const recorded = recordLeaseStatements(a);
  try {
    await a.leases!.hold(id, async () => {
      await a.sessions.append(id, [{ role: "user", content: "first question" }], { channel: "cli", agent: "helper" });
      await a.sessions.append(id, [
        { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "memory_recall", arguments: "{}" }], usage: { input_tokens: 3, output_tokens: 2 } as never },
        { role: "tool", content: "nothing", tool_call_id: "c1", name: "memory_recall" },
      ]);
      // the question and the tool round are stored at once (they survive a crash of this process mid-turn)
      expect((await b.sessions.allMessages(id)).map((m) => m.content)).toEqual(["first question", "", "nothing"]);
      await a.sessions.append(id, [{ role: "assistant", content: "the answer" }], { endsTurn: true });
      // the answer waits for the lease's end
      expect((await b.sessions.allMessages(id)).map((m) => m.content)).toEqual(["first question", "", "nothing"]);
    });
  } finally {
    recorded.restore();
  }
  // the lock and history, the two appends, then one statement for the answer and the unlock
  expect(recorded.texts).toHaveLength(4);
  expect(recorded.texts[3]).toStartWith("CALL prx_turn_end(");
  const stored = await b.sessions.allMessages(id);
  expect(stored.map((m) => [m.seq, m.role, m.content])).toEqual([
    [1, "user", "first question"],
    [2, "assistant", ""],
    [3, "tool", "nothing"],
    [4, "assistant", "the answer"],
  ]);
  expect(stored[1]!.toolCalls).toEqual([{ id: "c1", name: "memory_recall", arguments: "{}" }]);
  expect(stored[2]!.toolCallId).toBe("c1");
  expect(stored[1]!.usage).toEqual({ input_tokens: 3, output_tokens: 2 } as never);
  expect(await b.sessions.get(id)).toMatchObject({ title: "first question", channel: "cli", agent: "helper", messageCount: 4 });
  // the lease is free at once: another replica takes it, and its appends number on
  const took = await b.leases!.hold(id, async () => {
    await b.sessions.append(id, [{ role: "user", content: "second question" }], { endsTurn: true });
    return "taken";
  });
  expect(took).toBe("taken");
  expect((await a.sessions.history(id, 10)).map((m) => m.content)).toEqual(["first question", "", "nothing", "the answer", "second question"]);
  expect((await a.sessions.get(id))?.messageCount).toBe(5);
});

it("a turn's whole write at the lease's end creates the session with its channel, agent and title", async (a, b) => {
  const id = `turn-one-write-${schema}`;
  await a.leases!.hold(id, async () => {
    await a.sessions.append(id, [{ role: "user", content: "  only   write " }, { role: "assistant", content: "answer", usage: { input_tokens: 1, output_tokens: 1 } as never }], { channel: "telegram", agent: "helper", endsTurn: true });
  });
  expect(await b.sessions.get(id)).toMatchObject({ title: "only write", channel: "telegram", agent: "helper", messageCount: 2 });
  expect((await b.sessions.allMessages(id)).map((m) => [m.seq, m.content, m.usage ?? null])).toEqual([
    [1, "  only   write ", null],
    [2, "answer", { input_tokens: 1, output_tokens: 1 }],
  ] as never);
});

it("a read of the session before its lease's end sees the turn's answer (this process reads its own writes)", async (a) => {
  const id = `turn-read-${schema}`;
  await a.leases!.hold(id, async () => {
    await a.sessions.append(id, [{ role: "user", content: "asked" }], { channel: "cli", endsTurn: true });
    expect((await a.sessions.messages(id)).map((m) => m.content)).toEqual(["asked"]);
    expect((await a.sessions.get(id))?.messageCount).toBe(1);
    await a.sessions.append(id, [{ role: "assistant", content: "answered" }], { endsTurn: true });
    expect((await a.sessions.list(1000)).find((s) => s.id === id)?.messageCount).toBe(2);
    await a.sessions.append(id, [{ role: "user", content: "again" }], { endsTurn: true });
    await a.sessions.append(id, [{ role: "assistant", content: "written at once, after the kept one" }]);
  });
  expect((await a.sessions.allMessages(id)).map((m) => [m.seq, m.content])).toEqual([
    [1, "asked"],
    [2, "answered"],
    [3, "again"],
    [4, "written at once, after the kept one"],
  ]);
  // the turn's own writes count their messages, and the plain append after them on the lease's connection is counted too
  expect((await a.sessions.get(id))?.messageCount).toBe(4);
});

it("a turn failing after its last append loses nothing it appended, and leaves the lease free", async (a, b) => {
  const id = `turn-fail-${schema}`;
  let caught: unknown = null;
  try {
    await a.leases!.hold(id, async () => {
      await a.sessions.append(id, [{ role: "user", content: "asked before the failure" }], { channel: "cli", endsTurn: true });
      throw new Error("the delivery failed");
    });
  } catch (error) {
    caught = error;
  }
  expect((caught as Error).message).toBe("the delivery failed");
  expect((await b.sessions.allMessages(id)).map((m) => m.content)).toEqual(["asked before the failure"]);
  expect(await b.leases!.hold(id, async () => "free")).toBe("free");
});

it("a turn whose last write fails at the lease's end fails with STORAGE, writes nothing and leaves no lock behind", async (a, b) => {
  const id = `turn-end-fail-${schema}`;
  let caught: unknown = null;
  try {
    // no channel: the session is not created, so its messages have no session to belong to
    await a.leases!.hold(id, async () => {
      await a.sessions.append(id, [{ role: "user", content: "to a session that does not exist" }], { endsTurn: true });
      return "answered";
    });
  } catch (error) {
    caught = error;
  }
  expect(isPrxError(caught) && caught.code).toBe("STORAGE");
  expect(await b.sessions.allMessages(id)).toEqual([]);
  expect(await b.leases!.hold(id, async () => "free")).toBe("free");
});

it("a lease's connection is kept for the next turn; one the server closed meanwhile is replaced, the turn unaffected", async (a, b) => {
  const id = `kept-conn-${schema}`;
  const leases = a.leases as unknown as LeaseInternals;
  const backendOf = async () => ((await leases.prefetch.connection(id)!.unsafe("SELECT pg_backend_pid() AS pid")) as Array<{ pid: number }>)[0]!.pid;
  const first = await a.leases!.hold(id, async () => {
    await a.sessions.append(id, [{ role: "user", content: "one" }], { channel: "cli", endsTurn: true });
    return backendOf();
  });
  expect(await a.leases!.hold(id, backendOf)).toBe(first);
  // the kept connection's backend ends (a restart, an idle timeout of the server's): the next turn takes another
  await b.sql.unsafe("SELECT pg_terminate_backend($1)", [first]);
  const second = await a.leases!.hold(id, async () => {
    await a.sessions.append(id, [{ role: "user", content: "two" }], { endsTurn: true });
    return backendOf();
  });
  expect(second).not.toBe(first);
  expect((await b.sessions.allMessages(id)).map((m) => m.content)).toEqual(["one", "two"]);
  expect(await b.leases!.hold(id, async () => "free")).toBe("free");
});

it("more leases at once than the lease pool holds wait for a connection a lease gives back, and all run", async (a) => {
  // a's lease pool holds 2 connections (poolMax 2): 6 sessions' turns at once share them
  const leases = a.leases as unknown as LeaseInternals;
  const backends = new Set<number>();
  let running = 0;
  let most = 0;
  const turns = Array.from({ length: 6 }, (_, i) =>
    a.leases!.hold(`many-${i}-${schema}`, async () => {
      most = Math.max(most, ++running);
      const conn = leases.prefetch.connection(`many-${i}-${schema}`)!;
      backends.add(((await conn.unsafe("SELECT pg_backend_pid() AS pid")) as Array<{ pid: number }>)[0]!.pid);
      await Bun.sleep(5);
      running--;
      return i;
    }),
  );
  expect(await Promise.all(turns)).toEqual([0, 1, 2, 3, 4, 5]);
  expect(most).toBe(2);
  expect(backends.size).toBeLessThanOrEqual(2);
});

interface LeaseBench {
  acquire(): Promise<LeaseConnection>;
  giveBack(c: LeaseConnection): void;
  advance(ms: number): void;
}

/**
 * Lease connections on a pool of their own (2, as full as the leases make it: a connection not given back leaves none
 * to reserve) and fake timers; every connection leased is given back at the end, also when an expectation fails (the
 * pool closes once none is out).
 */
async function withLeaseConnections(body: (bench: LeaseBench) => Promise<void>): Promise<void> {
  const { timers, advance } = fakeTimers();
  const pool = openPg({ url: TEST_DATABASE_URL, schema, max: 2 });
  const connections = new LeaseConnections(pool, 2, timers);
  const leased = new Set<LeaseConnection>();
  const giveBack = (c: LeaseConnection) => (leased.delete(c), connections.giveBack(c.conn));
  const acquire = async () => {
    const c = await connections.acquire();
    leased.add(c);
    return c;
  };
  try {
    await body({ acquire, giveBack, advance });
  } finally {
    for (const c of leased) giveBack(c);
    connections.close();
    await pool.close();
  }
}

const backendOf = async (c: LeaseConnection) => ((await c.conn.unsafe("SELECT pg_backend_pid() AS pid")) as Array<{ pid: number }>)[0]!.pid;

it(`a lease connection unused for LEASE_CONNECTION_KEEP_MS (${LEASE_CONNECTION_KEEP_MS} ms) goes back to the pool; one unused a ms less is kept`, () =>
  withLeaseConnections(async ({ acquire, giveBack, advance }) => {
    const older = await acquire();
    const newer = await acquire();
    expect([older.fresh, newer.fresh]).toEqual([true, true]);
    const olderBackend = await backendOf(older);
    const newerBackend = await backendOf(newer);
    giveBack(older);
    advance(1);
    giveBack(newer);
    // the sweep, LEASE_CONNECTION_KEEP_MS after the first was kept: the older unused that long, the newer a ms less
    advance(LEASE_CONNECTION_KEEP_MS - 1);
    const kept = await acquire();
    expect(kept.fresh).toBe(false);
    expect(await backendOf(kept)).toBe(newerBackend);
    // the older one is in the pool again, idle: the next lease reserves it there
    const reserved = await acquire();
    expect(reserved.fresh).toBe(true);
    expect(await backendOf(reserved)).toBe(olderBackend);
  }));

it("a kept lease connection goes back to the pool once unused for LEASE_CONNECTION_KEEP_MS, also when an older one was swept before it", () =>
  withLeaseConnections(async ({ acquire, giveBack, advance }) => {
    const half = Math.floor(LEASE_CONNECTION_KEEP_MS / 2);
    const older = await acquire();
    const newer = await acquire();
    giveBack(older);
    advance(half);
    giveBack(newer);
    // the older one is swept LEASE_CONNECTION_KEEP_MS after it was kept, the newer one exactly its own limit later
    advance(LEASE_CONNECTION_KEEP_MS - half);
    advance(half);
    expect((await acquire()).fresh).toBe(true);
  }));

it(`a token revoked through another replica stops verifying once TOKEN_CACHE_TTL_MS (${TOKEN_CACHE_TTL_MS} ms) has passed`, async (a, b) => {
  const { token, record } = await a.tokens.create("shared");
  expect((await b.tokens.verify(token))?.id).toBe(record.id);
  expect(await a.tokens.revoke(record.id)).toBe(true);
  expect(await a.tokens.verify(token)).toBeNull(); // the revoking replica drops its cache at once
  now += TOKEN_CACHE_TTL_MS - 1;
  expect((await b.tokens.verify(token))?.id).toBe(record.id); // still trusted from b's cache
  now += 1;
  expect(await b.tokens.verify(token)).toBeNull();
});

it("requests with one token that find its cache entry expired together share one lookup", async (a) => {
  const { token, record } = await a.tokens.create("burst");
  const lookups: string[] = [];
  // the store's own database, its statements recorded on their way
  const sql = new Proxy(a.sql, {
    get(target, prop) {
      if (prop !== "unsafe") return Reflect.get(target, prop);
      return (text: string, params?: unknown[]) => {
        if (text.includes("token_sha256 =")) lookups.push(text);
        return target.unsafe(text, params);
      };
    },
  });
  const tokens = new PgTokenStore(sql, () => now);
  const burst = () => Promise.all(Array.from({ length: 16 }, () => tokens.verify(token)));
  expect((await burst()).map((found) => found?.id)).toEqual(Array(16).fill(record.id));
  expect(lookups).toHaveLength(1);
  now += TOKEN_CACHE_TTL_MS;
  expect((await burst()).map((found) => found?.id)).toEqual(Array(16).fill(record.id));
  expect(lookups).toHaveLength(2);
  // a revocation through this store while a lookup is on its way: the requests after it look again
  now += TOKEN_CACHE_TTL_MS;
  const before = tokens.verify(token);
  expect(await tokens.revoke(record.id)).toBe(true);
  expect(await tokens.verify(token)).toBeNull();
  await before;
  expect(await tokens.verify(token)).toBeNull();
});

it(`the token cache holds ${TOKEN_CACHE_MAX_ENTRIES} verified tokens; one more starts it afresh, all still verify`, async (a) => {
  const tokens = new PgTokenStore(a.sql, () => now);
  const minted: string[] = [];
  for (let i = 0; i <= TOKEN_CACHE_MAX_ENTRIES; i++) minted.push((await tokens.create(`t${i}`)).token);
  for (const token of minted.slice(0, -1)) expect(await tokens.verify(token)).not.toBeNull();
  expect(tokens.cachedCount).toBe(TOKEN_CACHE_MAX_ENTRIES);
  expect(await tokens.verify(minted.at(-1)!)).not.toBeNull();
  expect(tokens.cachedCount).toBe(1);
  expect(await tokens.verify(minted[0]!)).not.toBeNull();
  expect(tokens.cachedCount).toBe(2);
});
