/**
 * Scale-out: turns/s with 1, 2 and 3 gateway replicas on one PostgreSQL + Redis (fake provider in its own
 * process), each replica's CPU per turn; a turn's storage cost on PostgreSQL against SQLite; memory recall p50 at
 * 100k entries on PostgreSQL; event fan-out latency between replicas through Redis; a turn's overhead with auto-recall
 * on a million memories (pg-memory-fill.ts's fixture) against an empty store.
 * Needs the PostgreSQL (`test` database) and Redis of the development machines (PRX_TEST_DATABASE_URL/REDIS_URL).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { RedisClient } from "bun";
import { GATEWAY_SERVICE_ENV } from "../../../src/cli/service.ts";
import { PgMemory } from "../../../src/memory/postgres.ts";
import { EventBus } from "../../../src/plugins/events/bus.ts";
import { openReplicaFabric } from "../../../src/plugins/fabric/index.ts";
import { createLogger } from "../../../src/core/logger.ts";
import { sqliteStorage, type BackendStorage as Storage } from "../../../src/storage/index.ts";
import { pgStorage } from "../../../src/storage/postgres/index.ts";
import { dropSchema, TEST_DATABASE_URL, TEST_REDIS_URL, uniquePrefix, uniqueSchema } from "../../helpers/servers.ts";
import { replicaWorkspace, removeWorkspace, sharedConfig, sharedToken, startReplica, type Replica } from "../../helpers/replicas.ts";
import { startStandaloneFake, type StandaloneFake } from "../announce.ts";
import { describeWarmup, jitCpuUs, warmUntilJitSettles, type Warmup } from "../jit-settle.ts";
import { pgMemoryStore } from "../pg-memory-fill.ts";
import { cpuBetween, readCpu } from "../proc-cpu.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";
import { prng, sentence, wordSource } from "../zipf-text.ts";

const SUITE = "scaleout";
let STORAGE_TURNS = 1000;
const STORAGE_SESSIONS = 20;
let RECALL_ENTRIES = 100_000;
let RECALL_QUERIES = 200;
const INSERT_BATCH = 500;
let FANOUT_EVENTS = 1000;
/**
 * Turns per replica measured, and per replica in each warm-up block: the replicas are warmed until their JIT threads
 * have settled (jit-settle.ts: a 500-turn warm-up left each replica's JIT compiling 0.13-0.45 ms of CPU per measured
 * turn, a start-up cost the steady state does not pay), so 1 and 3 replicas are compared in the state a long-running
 * gateway spends its life in.
 */
let LOAD_TURNS = 1000;
let LOAD_WARMUP = 500;
/**
 * Idle time measured on the warmed replicas before the load (their background CPU: timers, membership, GC), after
 * IDLE_SETTLE_MS: the first second after a burst of turns is the allocator giving memory back and a collection
 * (~25 ms of CPU after a warm-up), not what an idle replica spends.
 */
let IDLE_MS = 3000;
let IDLE_SETTLE_MS = 2000;
/**
 * A turn with auto-recall on a store of this many memories (pg-memory-fill.ts's fixture schema, the entries of
 * the growth suite; PRX_BENCH_PG_KEEP=1 keeps it for the next run): turns at concurrency 1, before and measured.
 */
let RECALL_TURN_ENTRIES = 1_000_000;
let RECALL_TURNS = 300;
let RECALL_TURN_WARMUP = 300;
const RECALL_TURN_OVERHEAD_MS = 6;
/** Counts of the short pass (`bun run bench --quick`). */
const QUICK = {
  STORAGE_TURNS: 100,
  RECALL_ENTRIES: 10_000,
  RECALL_QUERIES: 20,
  FANOUT_EVENTS: 100,
  LOAD_TURNS: 100,
  LOAD_WARMUP: 30,
  IDLE_MS: 500,
  IDLE_SETTLE_MS: 200,
  RECALL_TURN_ENTRIES: 10_000,
  RECALL_TURNS: 30,
  RECALL_TURN_WARMUP: 30,
};
const LOAD_CONCURRENCY = 16;
/** The gateway's CPU per turn the scale-out asks for, at every replica count. */
const GATEWAY_CPU_PER_TURN_MS = 0.6;
const LOAD_SESSIONS = 64;
/** A replica's environment: the one `prx service install` starts a gateway with (its allocator settings), quiet. */
const REPLICA_ENV = { ...GATEWAY_SERVICE_ENV, PRX_LOG: "silent" };

/** CPU seconds (user + system) a process has used (`thread`: its main thread alone), from /proc. */
function cpuSeconds(pid: number, thread = false): number {
  const fields = readFileSync(thread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds of every process named `name` (the database servers), from /proc; other users' load counts too. */
function serverCpuSeconds(name: string): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === name) total += cpuSeconds(Number(entry));
    } catch {
      // the process exited between the listing and the read: it no longer counts
      continue;
    }
  }
  return total;
}

/**
 * One turn's store calls as a turn makes them (src/agent/turn.ts, transcript.ts), under the session's lease: history
 * and summary read together, the user's message (creating the session on its channel), the reply ending the turn.
 */
async function storageTurn(storage: Storage, session: string, n: number): Promise<void> {
  const body = async () => {
    await Promise.all([storage.sessions.history(session, 50), storage.sessions.summary(session)]);
    await storage.sessions.append(session, [{ role: "user", content: `question ${n} about the storage path` }], { channel: "bench" });
    await storage.sessions.append(session, [{ role: "assistant", content: `answer ${n}: the storage path is fine` }], { endsTurn: true });
  };
  await (storage.leases ? storage.leases.hold(session, body) : body());
}

async function storageCost(storage: Storage): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 100; i++) await storageTurn(storage, `warm-${i % STORAGE_SESSIONS}`, i);
  const samples: number[] = [];
  for (let i = 0; i < STORAGE_TURNS; i++) {
    const start = Bun.nanoseconds();
    await storageTurn(storage, `s-${i % STORAGE_SESSIONS}`, i);
    samples.push((Bun.nanoseconds() - start) / 1e6);
  }
  const { p50, p99 } = stats(samples);
  return { p50, p99 };
}

async function recallAt100k(storage: Storage & { sql: NonNullable<Storage["sql"]> }): Promise<{ p50: number; p99: number; loadS: number }> {
  const word = wordSource(42);
  const random = prng(1234);
  const started = performance.now();
  for (let done = 0; done < RECALL_ENTRIES; done += INSERT_BATCH) {
    const params: unknown[] = [];
    const tuples: string[] = [];
    const now = new Date().toISOString();
    for (let i = 0; i < INSERT_BATCH; i++) {
      const b = params.length;
      tuples.push(`($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 5})`);
      params.push(`mem_${done + i}`, `fact_${done + i}`, sentence(word, random, 6, 18), i % 7 === 0 ? "preference" : "core", now);
    }
    await storage.sql.unsafe(
      `INSERT INTO memories (id, key, content, category, created_at, updated_at) VALUES ${tuples.join(", ")}`,
      params,
    );
  }
  await storage.sql.unsafe("ANALYZE memories");
  const loadS = (performance.now() - started) / 1000;
  const memory = new PgMemory(storage.sql);
  const queryWord = wordSource(7 + RECALL_ENTRIES);
  const queryRandom = prng(99 + RECALL_ENTRIES);
  const queries = Array.from({ length: RECALL_QUERIES + 20 }, () => sentence(queryWord, queryRandom, 2, 6));
  for (const q of queries.slice(0, 20)) await memory.recall(q, 5);
  const samples: number[] = [];
  for (const q of queries.slice(20)) {
    const start = Bun.nanoseconds();
    await memory.recall(q, 5);
    samples.push((Bun.nanoseconds() - start) / 1e6);
  }
  return { ...stats(samples), loadS };
}

/**
 * Turn overhead (the turn's latency minus the fake provider's own time for it) of one replica, turns at concurrency 1
 * in 20 sessions, on `schema` (which a token is created in); every message is 2-6 Zipf words, as recall's queries.
 */
async function turnOverhead(fake: StandaloneFake, schema: string, seed: number): Promise<{ p50: number; p99: number; cpuMsPerTurn: number }> {
  const storage = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 1 });
  let token: { token: string };
  try {
    token = await storage.tokens.create("bench-recall");
  } finally {
    await storage.close();
  }
  const replica = await startReplica(replicaWorkspace(sharedConfig(fake.url, schema, uniquePrefix("recall"))), REPLICA_ENV);
  try {
    const word = wordSource(7 + seed);
    const random = prng(99 + seed);
    const turn = async (n: number): Promise<{ text: string; ms: number }> => {
      const text = `${sentence(word, random, 2, 6)} (${n})`;
      const start = performance.now();
      const response = await fetch(`${replica.url}/api/sessions/recall-${n % 20}/message`, {
        method: "POST",
        headers: { authorization: `Bearer ${token.token}`, "content-type": "application/json" },
        body: JSON.stringify({ message: text }),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`recall turn ${n}: ${response.status}`);
      return { text, ms: performance.now() - start };
    };
    for (let n = 0; n < RECALL_TURN_WARMUP; n++) await turn(n);
    await fake.handled();
    const turns: Array<{ text: string; ms: number }> = [];
    const cpuBefore = cpuSeconds(replica.proc.pid);
    for (let n = 0; n < RECALL_TURNS; n++) turns.push(await turn(RECALL_TURN_WARMUP + n));
    const cpuMsPerTurn = ((cpuSeconds(replica.proc.pid) - cpuBefore) * 1000) / RECALL_TURNS;
    const handled = await fake.handled();
    const overheads = turns.flatMap(({ text, ms }) => {
      const own = handled.get(text);
      return own === undefined ? [] : [ms - own];
    });
    return { ...stats(overheads), cpuMsPerTurn };
  } finally {
    await replica.kill("SIGTERM");
    removeWorkspace(replica.dir);
  }
}

/** The turn overhead with auto-recall on an empty store and on RECALL_TURN_ENTRIES memories, back to back. */
export async function recallTurnRows(fake: StandaloneFake): Promise<BenchRow[]> {
  const emptySchema = uniqueSchema("recallturn");
  let empty: Awaited<ReturnType<typeof turnOverhead>>;
  try {
    empty = await turnOverhead(fake, emptySchema, RECALL_TURN_ENTRIES);
  } finally {
    await dropSchema(emptySchema);
  }
  const store = await pgMemoryStore(TEST_DATABASE_URL, RECALL_TURN_ENTRIES);
  const schema = store.schema;
  let full: Awaited<ReturnType<typeof turnOverhead>>;
  try {
    full = await turnOverhead(fake, schema, RECALL_TURN_ENTRIES);
  } finally {
    // the kept fixture keeps only its memories: the bench's sessions and token go
    await store.storage.sql.unsafe("DELETE FROM session_messages");
    await store.storage.sql.unsafe("DELETE FROM sessions");
    await store.storage.sql.unsafe("DELETE FROM gateway_tokens");
    await store.done();
  }
  const size = RECALL_TURN_ENTRIES >= 1_000_000 ? `${RECALL_TURN_ENTRIES / 1_000_000}M` : `${RECALL_TURN_ENTRIES / 1000}k`;
  const how = `one replica (PostgreSQL storage and memory, Redis bus), ${RECALL_TURNS} turns at concurrency 1 after ${RECALL_TURN_WARMUP}, messages of 2-6 Zipf words; latency minus the fake's own time`;
  return [
    {
      suite: SUITE,
      name: `turn overhead p50 with auto-recall @${size} memories, PostgreSQL`,
      value: full.p50,
      unit: "ms",
      target: { op: "<=", value: RECALL_TURN_OVERHEAD_MS },
      note: `p99 ${full.p99.toFixed(2)} ms; gateway CPU ${full.cpuMsPerTurn.toFixed(2)} ms per turn; ${how}`,
    },
    {
      suite: SUITE,
      name: "turn overhead p50 with auto-recall, empty memory store, PostgreSQL",
      value: empty.p50,
      unit: "ms",
      note: `p99 ${empty.p99.toFixed(2)} ms; gateway CPU ${empty.cpuMsPerTurn.toFixed(2)} ms per turn; the same turns just before`,
    },
  ];
}

async function fanOut(): Promise<{ p50: number; p99: number }> {
  const prefix = uniquePrefix("bench");
  const logger = createLogger("bench.fabric");
  const busA = new EventBus({ logger });
  const busB = new EventBus({ logger });
  const noReload = async () => 0;
  const a = await openReplicaFabric({ url: TEST_REDIS_URL, prefix }, busA, noReload, logger);
  const b = await openReplicaFabric({ url: TEST_REDIS_URL, prefix }, busB, noReload, logger);
  const samples: number[] = [];
  const sub = busB.on("bench.*", (event) => {
    samples.push(performance.now() - (event.payload as { at: number }).at);
  });
  for (let i = 0; i < 3; i++) (await a.fabric.refresh(), await b.fabric.refresh());
  for (let i = 0; i < FANOUT_EVENTS; i++) {
    busA.publish("bench.tick", { at: performance.now(), i });
    await Bun.sleep(1);
  }
  await Bun.sleep(200);
  sub.off();
  await a.close();
  await b.close();
  return stats(samples.slice(50));
}

interface LoadResult {
  turnsPerS: number;
  cpuMsPerTurn: number;
  /** Of it, the replicas' main threads (the rest: JIT, HTTP client, allocator and collector threads). */
  mainMsPerTurn: number;
  /** The replicas' own CPU per turn, lowest and highest. */
  replicaMsPerTurn: { min: number; max: number };
  /** A warmed replica's CPU while no turn runs, ms per s (mean over the replicas), after IDLE_SETTLE_MS. */
  idleMsPerS: number;
  /** A replica's CPU in the IDLE_SETTLE_MS right after the warm-up, ms (mean over the replicas). */
  settleMs: number;
  /** The idle rate spread over the turns of the load's length: the share of cpuMsPerTurn that is per second, not per turn. */
  idleMsPerTurn: number;
  /** Redis commands per turn (every client of the server counts). */
  redisCommandsPerTurn: number;
  /** PostgreSQL and Redis server CPU per turn. */
  pgMsPerTurn: number;
  redisMsPerTurn: number;
  p50: number;
  warmup: Warmup;
}

/** Commands the Redis server has run (INFO commandstats), the INFO itself left out. */
async function redisCommands(): Promise<number> {
  const redis = new RedisClient(TEST_REDIS_URL);
  try {
    const info = (await redis.send("INFO", ["commandstats"])) as string;
    let total = 0;
    for (const m of info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) if (m[1] !== "info") total += Number(m[2]);
    return total;
  } finally {
    redis.close();
  }
}

async function load(replicas: Replica[], token: string, quick: boolean): Promise<LoadResult> {
  let next = 0;
  const latencies: number[] = [];
  const run = async (count: number, record: boolean) => {
    const worker = async () => {
      for (;;) {
        const n = next++;
        if (n >= count) return;
        const replica = replicas[n % replicas.length]!;
        const start = performance.now();
        const response = await fetch(`${replica.url}/api/sessions/load-${n % LOAD_SESSIONS}/message`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ message: `turn ${n}` }),
        });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`turn ${n} on ${replica.url}: ${response.status}`);
        if (record) latencies.push(performance.now() - start);
      }
    };
    await Promise.all(Array.from({ length: LOAD_CONCURRENCY }, worker));
  };
  const block = async () => {
    next = 0;
    await run(LOAD_WARMUP * replicas.length, false);
    return LOAD_WARMUP * replicas.length;
  };
  const allJitUs = () => {
    let total = 0;
    for (const r of replicas) {
      const us = jitCpuUs(r.proc.pid);
      if (us === null) return null;
      total += us;
    }
    return total;
  };
  const warmup = quick ? { turns: await block(), jitUsPerTurn: null, settled: false } : await warmUntilJitSettles(replicas[0]!.proc.pid, block, allJitUs);
  next = 0;
  const settleBefore = replicas.map((r) => readCpu(r.proc.pid));
  await Bun.sleep(IDLE_SETTLE_MS);
  const idleBefore = replicas.map((r) => readCpu(r.proc.pid));
  const settleNs = idleBefore.reduce((sum, reading, i) => sum + cpuBetween(settleBefore[i]!, reading), 0);
  await Bun.sleep(IDLE_MS);
  const idleNs = replicas.reduce((sum, r, i) => sum + cpuBetween(idleBefore[i]!, readCpu(r.proc.pid)), 0);
  const idleMsPerS = idleNs / 1e6 / (IDLE_MS / 1000) / replicas.length;
  const turns = LOAD_TURNS * replicas.length;
  const cpuBefore = replicas.map((r) => cpuSeconds(r.proc.pid));
  const mainBefore = replicas.map((r) => cpuSeconds(r.proc.pid, true));
  const pgBefore = serverCpuSeconds("postgres");
  const redisBefore = serverCpuSeconds("redis-server");
  const commandsBefore = await redisCommands();
  const started = performance.now();
  await run(turns, true);
  const seconds = (performance.now() - started) / 1000;
  const commands = (await redisCommands()) - commandsBefore;
  const each = replicas.map((r, i) => cpuSeconds(r.proc.pid) - cpuBefore[i]!);
  const main = replicas.reduce((sum, r, i) => sum + cpuSeconds(r.proc.pid, true) - mainBefore[i]!, 0);
  const cpu = each.reduce((sum, c) => sum + c, 0);
  const perTurn = (s: number) => (s * 1000) / turns;
  const replicaMs = each.map((c) => (c * 1000) / LOAD_TURNS);
  return {
    turnsPerS: turns / seconds,
    cpuMsPerTurn: perTurn(cpu),
    mainMsPerTurn: perTurn(main),
    replicaMsPerTurn: { min: Math.min(...replicaMs), max: Math.max(...replicaMs) },
    idleMsPerS,
    settleMs: settleNs / 1e6 / replicas.length,
    idleMsPerTurn: (idleMsPerS * replicas.length * seconds) / turns,
    redisCommandsPerTurn: commands / turns,
    pgMsPerTurn: perTurn(serverCpuSeconds("postgres") - pgBefore),
    redisMsPerTurn: perTurn(serverCpuSeconds("redis-server") - redisBefore),
    p50: stats(latencies).p50,
    warmup,
  };
}

const suite: BenchSuite = async (ctx) => {
  if (ctx.quick) {
    ({ STORAGE_TURNS, RECALL_ENTRIES, RECALL_QUERIES, FANOUT_EVENTS, LOAD_TURNS, LOAD_WARMUP, IDLE_MS, IDLE_SETTLE_MS } = QUICK);
    ({ RECALL_TURN_ENTRIES, RECALL_TURNS, RECALL_TURN_WARMUP } = QUICK);
  }
  const rows: BenchRow[] = [];
  const schema = uniqueSchema("bench");
  const pg = await pgStorage({ url: TEST_DATABASE_URL, schema, poolMax: 8 });
  const db = new Database(join(ctx.tmp, "prx.db"), { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  try {
    const lite = await storageCost(sqliteStorage(db));
    const remote = await storageCost(pg);
    const note = "history and summary, the user's message, the reply ending the turn (+ the session lease on PostgreSQL, the reply written with its end), one session of 20 at a time; synchronous_commit false (the durability of SQLite's WAL + synchronous=NORMAL)";
    rows.push({ suite: SUITE, name: "storage per turn p50, SQLite", value: lite.p50, unit: "ms", note });
    rows.push({ suite: SUITE, name: "storage per turn p50, PostgreSQL", value: remote.p50, unit: "ms", note: `p99 ${remote.p99.toFixed(2)} ms` });
    rows.push({ suite: SUITE, name: "storage per turn, PostgreSQL extra p50", value: remote.p50 - lite.p50, unit: "ms", target: { op: "<=", value: 1 } });
    const durableSchema = uniqueSchema("durable");
    const durable = await pgStorage({ url: TEST_DATABASE_URL, schema: durableSchema, poolMax: 8, synchronousCommit: true });
    try {
      const flushed = await storageCost(durable);
      rows.push({
        suite: SUITE,
        name: "storage per turn p50, PostgreSQL synchronous_commit = true",
        value: flushed.p50,
        unit: "ms",
        note: "each commit of a turn waits for the WAL flush: this VM's shared disk decides",
      });
    } finally {
      await durable.close();
      await dropSchema(durableSchema);
    }

    const recall = await recallAt100k(pg);
    rows.push({
      suite: SUITE,
      name: `memory recall p50 @${RECALL_ENTRIES / 1000}k, PostgreSQL`,
      value: recall.p50,
      unit: "ms",
      target: { op: "<=", value: 10 },
      note: `p99 ${recall.p99.toFixed(2)} ms; ${RECALL_QUERIES} queries of 2-6 Zipf words; ${RECALL_ENTRIES / 1000}k rows loaded in ${recall.loadS.toFixed(1)} s`,
    });

    const fan = await fanOut();
    rows.push({ suite: SUITE, name: "event fan-out across replicas p50", value: fan.p50, unit: "ms", target: { op: "<=", value: 2 }, note: `p99 ${fan.p99.toFixed(2)} ms; publish on one bus to a listener on another, through Redis` });
  } finally {
    db.close();
    await pg.close();
    await dropSchema(schema);
  }

  const fake = await startStandaloneFake(0);
  try {
    rows.push(...(await recallTurnRows(fake)));
    for (const count of [1, 2, 3]) {
      const loadSchema = uniqueSchema(`load${count}`);
      const token = await sharedToken(loadSchema);
      const config = sharedConfig(fake.url, loadSchema, uniquePrefix(`load${count}`));
      const replicas: Replica[] = [];
      try {
        for (let i = 0; i < count; i++) replicas.push(await startReplica(replicaWorkspace(config), REPLICA_ENV));
        const result = await load(replicas, token, Boolean(ctx.quick));
        const note = `${LOAD_TURNS * count} turns (${LOAD_TURNS} a replica, after a ${describeWarmup(result.warmup)} over them all) over ${LOAD_SESSIONS} sessions, concurrency ${LOAD_CONCURRENCY}, p50 ${result.p50.toFixed(1)} ms; 2 cores shared by replicas, PostgreSQL, Redis, fake and client; replicas started with the environment of \`prx service install\` (${Object.entries(GATEWAY_SERVICE_ENV).map(([k, v]) => `${k}=${v}`).join(" ")})`;
        rows.push({ suite: SUITE, name: `turns/s with ${count} replica${count > 1 ? "s" : ""}`, value: result.turnsPerS, unit: "ops/s", note });
        const label = `with ${count} replica${count > 1 ? "s" : ""}`;
        rows.push({
          suite: SUITE,
          name: `gateway CPU per turn ${label} (all replicas)`,
          value: result.cpuMsPerTurn,
          unit: "ms",
          target: { op: "<=", value: GATEWAY_CPU_PER_TURN_MS },
          note: `main threads ${result.mainMsPerTurn.toFixed(2)} ms; each replica ${result.replicaMsPerTurn.min.toFixed(2)}-${result.replicaMsPerTurn.max.toFixed(2)} ms; a warmed replica idle: ${result.idleMsPerS.toFixed(1)} ms of CPU per s (${result.idleMsPerTurn.toFixed(3)} ms a turn at this rate of turns), after ${result.settleMs.toFixed(1)} ms in the ${IDLE_SETTLE_MS / 1000} s right after the warm-up; process CPU from /proc (all threads)`,
        });
        rows.push({ suite: SUITE, name: `Redis commands per turn ${label}`, value: result.redisCommandsPerTurn, unit: "count", note: "INFO commandstats of the server: every client counts, and so do the commands a script runs (a rate-limit take is 5)" });
        rows.push({ suite: SUITE, name: `PostgreSQL CPU per turn ${label}`, value: result.pgMsPerTurn, unit: "ms", note: "all postgres processes of the machine" });
        rows.push({ suite: SUITE, name: `Redis CPU per turn ${label}`, value: result.redisMsPerTurn, unit: "ms" });
      } finally {
        for (const r of replicas) {
          await r.kill("SIGTERM");
          removeWorkspace(r.dir);
        }
        await dropSchema(loadSchema);
      }
    }
  } finally {
    await fake.stop();
  }
  return rows;
};

export default suite;
