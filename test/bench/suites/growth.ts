/**
 * How costs grow with the data behind them: each series prints size -> cost and the fitted growth exponent
 * (../growth.ts). Sessions are listed and searched through the gateway (in this process, over loopback), memory
 * is recalled from the SQLite backend (also right after a store, and beside a writer in another process) and from
 * the PostgreSQL one (a schema of its own on the test server, ../pg-memory-fill.ts), and concurrent clients go
 * through the built binary (../many-clients.ts), as does a workspace of N mixed installed plugins left idle (RSS and idle
 * CPU of the gateway and its plugin processes, ../installed-idle.ts).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../../src/agent/index.ts";
import type { ChatMessage } from "../../../src/contracts/chat.ts";
import { setLogSink } from "../../../src/core/logger.ts";
import { startGateway } from "../../../src/gateway/server.ts";
import { PgMemory } from "../../../src/memory/postgres.ts";
import { SqliteMemory } from "../../../src/memory/sqlite.ts";
import type { MemoryBackend } from "../../../src/memory/types.ts";
import { openSqliteStorage, type SqliteSessionStore } from "../../../src/storage/index.ts";
import { sqliteStorageOf } from "../../helpers/host-db.ts";
import { postgresAvailable, TEST_DATABASE_URL } from "../../helpers/servers.ts";
import { createToken, startGateway as startGatewayProcess, writeConfig } from "../gateway-process.ts";
import { growthRows, sizeLabel } from "../growth.ts";
import { installedIdleRows } from "../installed-idle.ts";
import { manyClientsRows } from "../many-clients.ts";
import { pgMemoryStore } from "../pg-memory-fill.ts";
import { stats, type BenchContext, type BenchRow, type BenchSuite } from "../types.ts";
import { prng, sentence, wordSource } from "../zipf-text.ts";

const SUITE = "growth";
/** Sessions behind GET /api/sessions while their messages grow. */
const LISTED_SESSIONS = 500;
const MESSAGES_PER_SESSION = { full: [10, 1000], quick: [10, 100] } as const;
const SEARCHED_SESSIONS = { full: [100, 10_000, 100_000], quick: [100, 10_000] } as const;
const RECALL_ENTRIES = { full: [10_000, 100_000, 1_000_000], quick: [10_000, 100_000] } as const;
const REQUESTS = { full: 50, quick: 10 };
const RECALLS = { full: 200, quick: 50 };
const WARMUP = 5;
/** Rows written per transaction while a fixture grows. */
const BATCH = 1000;
const SEARCH_TARGET_MS = 2;
const RECALL_TARGET_MS = 5;
/** How often the second process stores an entry while recall is measured beside it. */
const WRITER_INTERVAL_MS = 10;
/** "Independent of size": over a 100x size step, at most 10^(2*0.1) = 1.6x the cost. */
const INDEPENDENT_EXPONENT = 0.1;
const NO_MATCH = "no-session-has-this-in-its-title";

async function openHost(tmp: string, name: string): Promise<AgentHost> {
  const workspace = join(tmp, name);
  mkdirSync(workspace, { recursive: true });
  writeFileSync(
    join(workspace, "config.toml"),
    'default_provider = "offline"\nautonomy = { level = "full" }\n[memory]\nbackend = "none"\n[gateway]\nrequire_pairing = false\n' +
      "rate_limit_per_minute = 100000000\nrate_limit_per_token_per_minute = 100000000\n",
  );
  return openAgentHost({ workspace });
}

/** p50 of `count` GET requests (after WARMUP), body read, in ms. */
async function requestP50(url: string, count: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + count; i++) {
    const start = Bun.nanoseconds();
    const response = await fetch(url);
    await response.text();
    if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
    if (i >= WARMUP) samples.push((Bun.nanoseconds() - start) / 1e6);
  }
  return stats(samples).p50;
}

function messages(from: number, to: number): ChatMessage[] {
  return Array.from({ length: to - from }, (_, i) =>
    (from + i) % 2 === 0
      ? { role: "user", content: `question ${from + i} about the quarterly report and the meeting at ten` }
      : { role: "assistant", content: `answer ${from + i}: the report is due on Friday; the meeting moved to eleven` },
  );
}

/** Fills the host's sessions in transactions of BATCH rows (the store's own transactions nest inside). */
function inBatches(host: AgentHost, count: number, write: (sessions: SqliteSessionStore, i: number) => number): void {
  const { db, sessions } = sqliteStorageOf(host);
  let written = 0;
  db.exec("BEGIN");
  for (let i = 0; i < count; i++) {
    written += write(sessions, i);
    if (written >= BATCH) {
      db.exec("COMMIT");
      db.exec("BEGIN");
      written = 0;
    }
  }
  db.exec("COMMIT");
}

async function withGateway(ctx: { tmp: string }, name: string, run: (host: AgentHost, url: string) => Promise<BenchRow[]>) {
  const host = await openHost(ctx.tmp, name);
  const gateway = await startGateway({ host, port: 0, print: () => {}, handleSignals: false, version: "bench", accessLog: () => {} });
  try {
    return await run(host, `http://127.0.0.1:${gateway.port}`);
  } finally {
    await gateway.stop();
    await host.close();
  }
}

function sessionListRows(ctx: { tmp: string; quick?: boolean }): Promise<BenchRow[]> {
  const mode = ctx.quick ? "quick" : "full";
  return withGateway(ctx, "list", async (host, url) => {
    let stored = 0;
    for (let s = 0; s < LISTED_SESSIONS; s++) await host.sessions.ensure(`list-${s}`, "bench");
    return growthRows({
      suite: SUITE,
      name: `GET /api/sessions (${LISTED_SESSIONS} sessions), time per request, p50`,
      per: "messages per session",
      unit: "ms",
      sizes: MESSAGES_PER_SESSION[mode],
      grow: (size) => {
        inBatches(host, LISTED_SESSIONS, (sessions, s) => {
          sessions.append(`list-${s}`, messages(stored, size));
          return size - stored;
        });
        stored = size;
      },
      cost: () => requestP50(`${url}/api/sessions`, REQUESTS[mode]),
      exponentTarget: { op: "<=", value: INDEPENDENT_EXPONENT },
      note: `all ${LISTED_SESSIONS} sessions in each answer; ${REQUESTS[mode]} requests over loopback`,
    });
  });
}

function sessionSearchRows(ctx: { tmp: string; quick?: boolean }): Promise<BenchRow[]> {
  const mode = ctx.quick ? "quick" : "full";
  return withGateway(ctx, "search", async (host, url) => {
    let created = 0;
    return growthRows({
      suite: SUITE,
      name: "session search finding nothing (GET /api/sessions?q=), time per request, p50",
      per: "sessions",
      unit: "ms",
      sizes: SEARCHED_SESSIONS[mode],
      grow: (size) => {
        inBatches(host, size - created, (sessions, i) => {
          const id = `search-${created + i}`;
          sessions.ensure(id, "bench");
          sessions.append(id, messages(0, 2));
          return 3;
        });
        created = size;
      },
      cost: () => requestP50(`${url}/api/sessions?q=${NO_MATCH}`, REQUESTS[mode]),
      target: { size: 100_000, op: "<=", value: SEARCH_TARGET_MS },
      note: "sessions of 2 messages, titled by their first; no title or id contains the text",
    });
  });
}

async function recallRows(ctx: { tmp: string; quick?: boolean }): Promise<BenchRow[]> {
  const mode = ctx.quick ? "quick" : "full";
  const storage = openSqliteStorage(join(ctx.tmp, "recall.db"));
  try {
    const memory = new SqliteMemory(() => storage.memory);
    const word = wordSource(42);
    const random = prng(1234);
    let stored = 0;
    const rows = await growthRows({
      suite: SUITE,
      name: "SQLite memory recall, p50",
      per: "entries",
      unit: "ms",
      sizes: RECALL_ENTRIES[mode],
      grow: async (size) => {
        while (stored < size) {
          const batch = Math.min(BATCH, size - stored);
          storage.db.exec("BEGIN");
          for (let i = 0; i < batch; i++) {
            await memory.store(`fact_${stored + i}`, sentence(word, random, 6, 18), i % 7 === 0 ? "preference" : "core");
          }
          storage.db.exec("COMMIT");
          stored += batch;
        }
      },
      cost: (size) => recallP50(memory, size, RECALLS[mode]),
      target: { size: RECALL_ENTRIES[mode].at(-1)!, op: "<=", value: RECALL_TARGET_MS },
      note: `${RECALLS[mode]} queries of 2-6 Zipf-distributed words, limit 5; entries of 6-18 words`,
    });
    const largest = RECALL_ENTRIES[mode].at(-1)!;
    const afterStore = await recallP50(memory, largest, RECALLS[mode], (i) =>
      memory.store(`fresh_${i}`, sentence(word, random, 6, 18), "core"),
    );
    rows.push(recallRow(`SQLite memory recall right after a store, p50 @${sizeLabel(largest)} entries`, afterStore, "each recall follows a store of a new entry"));
    const writer = Bun.spawn(["bun", join(import.meta.dir, "..", "memory-writer.ts"), join(ctx.tmp, "recall.db"), String(WRITER_INTERVAL_MS)], {
      stdout: "pipe",
      stderr: "inherit",
    });
    try {
      await firstLine(writer.stdout);
      const withWriter = await recallP50(memory, largest, RECALLS[mode]);
      rows.push(
        recallRow(
          `SQLite memory recall with a writer in another process, p50 @${sizeLabel(largest)} entries`,
          withWriter,
          `another process stores an entry every ${WRITER_INTERVAL_MS} ms into the same file`,
        ),
      );
    } finally {
      writer.kill();
      await writer.exited;
    }
    return rows;
  } finally {
    await storage.close();
  }
}

/** Concurrent clients through the built gateway, JSON and streamed (../many-clients.ts). */
function clientRows(ctx: BenchContext): Promise<BenchRow[]> {
  return manyClientsRows({
    binary: ctx.binary,
    dir: join(ctx.tmp, "many-clients"),
    token: (ws) => createToken(ctx.binary, ws, ctx.tmp),
    startGateway: startGatewayProcess,
    writeConfig,
    quick: ctx.quick,
  });
}

/** A row of a recall p50 against the recall target. */
function recallRow(name: string, value: number, note: string): BenchRow {
  return { suite: SUITE, name, value, unit: "ms", target: { op: "<=", value: RECALL_TARGET_MS }, note };
}

/** Resolves with the first line a child writes (its "ready"). */
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the memory writer exited before its first store");
    text += decoder.decode(value);
  }
  reader.releaseLock();
  return text.split("\n")[0]!;
}

/** p50 of `count` recalls (after WARMUP) of the query stream for `size`, in ms; `before(i)` runs untimed before each. */
async function recallP50(
  memory: MemoryBackend,
  size: number,
  count: number,
  before?: (i: number) => Promise<unknown>,
): Promise<number> {
  const queryWord = wordSource(7 + size);
  const queryRandom = prng(99 + size);
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + count; i++) {
    const query = sentence(queryWord, queryRandom, 2, 6);
    await before?.(i);
    const start = Bun.nanoseconds();
    await memory.recall(query, 5);
    if (i >= WARMUP) samples.push((Bun.nanoseconds() - start) / 1e6);
  }
  return stats(samples).p50;
}

/** The same entries and queries as the SQLite series, in PostgreSQL (pg-memory-fill.ts: COPY, then ANALYZE). */
async function pgRecallRows(ctx: { quick?: boolean }): Promise<BenchRow[]> {
  const mode = ctx.quick ? "quick" : "full";
  if (!(await postgresAvailable())) {
    console.log(`  PostgreSQL memory recall: skipped, no server at ${TEST_DATABASE_URL}`);
    return [];
  }
  // one store per size, each measured then closed: a million entries on the shared server are not grown from 100k
  const open: { store: Awaited<ReturnType<typeof pgMemoryStore>> | null } = { store: null };
  try {
    return await growthRows({
      suite: SUITE,
      name: "PostgreSQL memory recall, p50",
      per: "entries",
      unit: "ms",
      sizes: RECALL_ENTRIES[mode],
      grow: async (size) => {
        await open.store?.done();
        open.store = null;
        open.store = await pgMemoryStore(TEST_DATABASE_URL, size);
      },
      cost: (size) => recallP50(new PgMemory(open.store!.storage.sql), size, RECALLS[mode]),
      target: { size: RECALL_ENTRIES[mode].at(-1)!, op: "<=", value: RECALL_TARGET_MS },
      note: `the SQLite series' entries and queries; filled with COPY then ANALYZE, as prx's bulk writes do`,
    });
  } finally {
    await open.store?.done();
  }
}

const suite: BenchSuite = async (ctx) => {
  setLogSink(() => {});
  return [
    ...(await sessionListRows(ctx)),
    ...(await sessionSearchRows(ctx)),
    ...(await recallRows(ctx)),
    ...(await pgRecallRows(ctx)),
    ...(await clientRows(ctx)),
    ...(await installedIdleRows(ctx, SUITE)),
  ];
};

export default suite;
