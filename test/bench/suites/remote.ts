import { openSqliteStorage } from "../../../src/storage/index.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MemoryTicker } from "../../../src/plugins/remote/host/memory/index.ts";
import {
  createRemoteHostBindings,
  openRemotePlugin,
  REMOTE_DEFAULT_IDLE_STOP_MS,
  REMOTE_MEMORY_CHECK_MS,
  startRemotePlugin,
  type RemotePluginHandle,
  type RemoteTransport,
} from "../../../src/plugins/remote/index.ts";
import { idleCost } from "../idle-cost.ts";
import { remoteGatewayRows } from "../remote-gateway.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";

/** Remote plugins: RPC round trip, pipelined throughput, spawn-to-ready and memory per plugin, for both transports. */
let ROUNDS = 5;
let PER_ROUND = 1000;
let WARMUP = 500;
let PIPELINED = 20_000;
const WINDOW = 1000;
let STARTS = 7;
let RSS_PLUGINS = 4;
/** Installed plugins whose idle cost is measured, and the idle window each is measured over. */
let INSTALLED = [1, 10, 40];
/** Remote plugins installed in the built gateway whose idle cost is measured. */
let GATEWAY_PLUGINS = 40;
let IDLE_WINDOW_MS = 3000;
/** Counts of the short pass (`bun run bench --quick`). */
const QUICK = {
  ROUNDS: 1,
  PER_ROUND: 200,
  WARMUP: 100,
  PIPELINED: 2000,
  STARTS: 2,
  RSS_PLUGINS: 1,
  INSTALLED: [1, 2],
  GATEWAY_PLUGINS: 2,
  IDLE_WINDOW_MS: 500,
};

/** Worker round trip in us (absolute); the subprocess round trip's target is a ratio to its bare echo (below). */
const TARGETS = {
  worker: { rtt: 40, ready: 100 },
  process: { ready: 200 },
} as const;

async function sample(call: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < PER_ROUND; i++) {
    const t0 = Bun.nanoseconds();
    await call(i);
    samples.push((Bun.nanoseconds() - t0) / 1000);
  }
  return samples;
}

/** A JSON echo over a bare Worker or NDJSON pipe: the transport's floor on this machine right now. */
function rawEcho(transport: RemoteTransport): { call: (i: number) => Promise<unknown>; close: () => void } {
  const reply =
    "const r = (t) => JSON.stringify({ type: 'worker-rpc-result', requestId: JSON.parse(t).requestId, ok: true });";
  const request = (i: number) =>
    JSON.stringify({
      type: "worker-rpc",
      requestId: i,
      surface: "service",
      target: "service:ECHO.echo",
      args: { args: [i] },
    });
  let resolve: (value: unknown) => void = () => {};
  if (transport === "worker") {
    const code = `${reply} self.onmessage = (e) => postMessage(r(e.data));`;
    const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
    worker.onmessage = (e: MessageEvent) => resolve(JSON.parse(e.data as string));
    return {
      call: (i) => new Promise((r) => ((resolve = r), worker.postMessage(request(i)))),
      close: () => worker.terminate(),
    };
  }
  // the fastest stdio echo found here: stdin (a socketpair) read by Bun.connect, replies by one write(2) on fd 1
  const code = `${reply} const fs = require('fs'); let b = ''; const d = new TextDecoder();
    Bun.connect({ fd: 0, socket: { data(s, c) { b += d.decode(c); let n;
      while ((n = b.indexOf('\\n')) >= 0) { fs.writeSync(1, r(b.slice(0, n)) + '\\n'); b = b.slice(n + 1); } } } });`;
  const proc = Bun.spawn([process.execPath, "-e", code], {
    stdin: "pipe",
    stdout: "pipe",
    env: { PATH: process.env.PATH ?? "" },
  });
  void (async () => {
    let buffer = "";
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) {
      buffer += decoder.decode(chunk);
      for (let n = buffer.indexOf("\n"); n >= 0; n = buffer.indexOf("\n")) {
        resolve(JSON.parse(buffer.slice(0, n)));
        buffer = buffer.slice(n + 1);
      }
    }
  })();
  return {
    call: (i) => new Promise((r) => ((resolve = r), proc.stdin.write(request(i) + "\n"), proc.stdin.flush())),
    close: () => proc.kill(),
  };
}

function rssOfPid(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

const suite: BenchSuite = async (ctx) => {
  if (ctx.quick) ({ ROUNDS, PER_ROUND, WARMUP, PIPELINED, STARTS, RSS_PLUGINS, INSTALLED, IDLE_WINDOW_MS, GATEWAY_PLUGINS } = QUICK);
  const dir = join(ctx.root, "test/plugins/remote/fixtures");
  const storage = openSqliteStorage(join(ctx.tmp, "remote-bench.db"));
  const host = createRemoteHostBindings({
    store: storage.remotePlugins,
    pluginKv: storage.pluginKv,
    memory: () => null,
    providers: {
      resolve: () => {
        throw new Error("no provider in the remote bench");
      },
      names: () => [],
    },
    events: { publish() {} },
    model: { provider: "none", model: "none" },
  });
  const start = (transport: RemoteTransport) =>
    startRemotePlugin({
      name: "probe",
      dir,
      entryPath: join(dir, "probe.ts"),
      transport,
      settings: {},
      rpcTimeoutMs: 30_000,
      readyTimeoutMs: 30_000,
      host,
    });
  const rows: BenchRow[] = [];
  const row = (name: string, value: number, unit: BenchRow["unit"], extra: Partial<BenchRow> = {}) =>
    rows.push({ suite: "remote", name, value, unit, ...extra });
  try {
    for (const transport of ["worker", "process"] as const) {
      const readies: number[] = [];
      for (let i = 0; i < STARTS; i++) {
        const t0 = performance.now();
        const h = await start(transport);
        readies.push(performance.now() - t0);
        await h.shutdown();
      }
      // the first start pays for transpiling the plugin and the runtime; report the steady state and the cold one
      row(`${transport} spawn-to-ready p50`, stats(readies.slice(1)).p50, "ms", {
        target: { op: "<=", value: TARGETS[transport].ready },
      });
      row(`${transport} spawn-to-ready first`, readies[0]!, "ms");

      const handle = await start(transport);
      // rounds alternate with a bare echo over the same transport, so the floor is measured under the same load
      const floor = rawEcho(transport);
      try {
        const echo = (i: number) => handle.callService("ECHO", "echo", [i]);
        for (let i = 0; i < WARMUP; i++) await Promise.all([echo(i), floor.call(i)]);
        const ours: number[] = [];
        const raw: number[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          ours.push(...(await sample(echo)));
          raw.push(...(await sample(floor.call)));
        }
        const { p50, p99 } = stats(ours);
        const floorP50 = stats(raw).p50;
        // subprocess: a ratio to the bare NDJSON echo (NDJSON stays the subprocess protocol: elizaOS speaks it)
        const target = transport === "process" ? { op: "<=" as const, value: 1.5, ratio: true as const } : { op: "<=" as const, value: TARGETS.worker.rtt };
        row(`${transport} rpc round trip p50`, p50, "us", {
          floor: { name: "bare echo", value: floorP50, ratio: p50 / floorP50 },
          target,
        });
        row(`${transport} rpc round trip p99`, p99, "us");
        const t0 = performance.now();
        for (let done = 0; done < PIPELINED; done += WINDOW) {
          await Promise.all(Array.from({ length: WINDOW }, (_, i) => echo(done + i)));
        }
        row(`${transport} pipelined calls`, PIPELINED / ((performance.now() - t0) / 1000), "ops/s", {
          note: `${WINDOW} in flight`,
        });
      } finally {
        floor.close();
        await handle.shutdown();
      }
    }

    // memory: subprocess RSS is measured directly; a Worker shares the process, so use the RSS growth per Worker
    const handles: RemotePluginHandle[] = [];
    try {
      Bun.gc(true);
      const before = process.memoryUsage().rss;
      for (let i = 0; i < RSS_PLUGINS; i++) handles.push(await start("worker"));
      for (const h of handles) await h.callService("ECHO", "echo", [1]);
      Bun.gc(true);
      const perWorker = (process.memoryUsage().rss - before) / RSS_PLUGINS / (1024 * 1024);
      row("worker RSS per plugin", perWorker, "MB", { note: `growth over ${RSS_PLUGINS} Workers` });
      const proc = await start("process");
      handles.push(proc);
      await proc.callService("ECHO", "echo", [1]);
      row("process RSS per plugin", rssOfPid(proc.status().pid!), "MB", { note: "VmRSS of the child" });
    } finally {
      await Promise.all(handles.map((h) => h.shutdown()));
    }
    rows.push(...(await installedRows(dir, host, join(ctx.tmp, "cache"))));
    rows.push(...(await remoteGatewayRows(ctx.root, ctx.binary, ctx.tmp, GATEWAY_PLUGINS, IDLE_WINDOW_MS)));
  } finally {
    await storage.close();
  }
  return rows;
};

/**
 * What N installed plugins cost an idle host (this process and its plugin subprocesses, from /proc): kept running
 * (`idle_stop_ms = 0`, what every plugin cost before plugins started on demand), then loaded again from their cached
 * descriptors (on demand: nothing started). Also the first call of a plugin that is not running (its start).
 */
async function installedRows(
  dir: string,
  host: ReturnType<typeof createRemoteHostBindings>,
  cacheDir: string,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const ticker = new MemoryTicker(REMOTE_MEMORY_CHECK_MS);
  const open = (transport: RemoteTransport, i: number, idleStopMs: number) =>
    openRemotePlugin(
      {
        name: `installed-${transport}-${i}`,
        dir,
        entryPath: join(dir, "probe.ts"),
        transport,
        settings: {},
        rpcTimeoutMs: 30_000,
        readyTimeoutMs: 60_000,
        host,
        memoryTicker: ticker,
        idleStopMs,
      },
      cacheDir,
    );
  const measure = async (label: string, note: string) => {
    await Bun.sleep(500);
    Bun.gc(true);
    const cost = await idleCost(IDLE_WINDOW_MS);
    rows.push({ suite: "remote", name: `${label}: RSS (host + subprocesses)`, value: cost.rssMb, unit: "MB", note });
    rows.push({ suite: "remote", name: `${label}: threads`, value: cost.threads, unit: "count", note });
    rows.push({
      suite: "remote",
      name: `${label}: idle CPU`,
      value: cost.cpuPercent,
      unit: "%",
      note: `% of one core over ${IDLE_WINDOW_MS} ms, host + subprocesses (/proc stat)`,
    });
    return cost;
  };
  Bun.gc(true);
  const base = await measure("no remote plugin", "this bench process alone");
  for (const transport of ["worker", "process"] as const) {
    for (const n of INSTALLED) {
      const running: RemotePluginHandle[] = [];
      try {
        for (let i = 0; i < n; i++) running.push(await open(transport, i, 0));
        await measure(`${n} ${transport} plugins kept running`, `idle_stop_ms = 0; base ${base.rssMb.toFixed(1)} MB`);
      } finally {
        await Promise.all(running.map((h) => h.shutdown()));
      }
      const lazy: RemotePluginHandle[] = [];
      try {
        for (let i = 0; i < n; i++) lazy.push(await open(transport, i, REMOTE_DEFAULT_IDLE_STOP_MS));
        if (lazy.some((h) => h.status().state !== "idle")) throw new Error(`a cached ${transport} plugin was started at load`);
        await measure(`${n} ${transport} plugins on demand, none called`, `descriptors from the cache; base ${base.rssMb.toFixed(1)} MB`);
        const t0 = performance.now();
        await lazy[0]!.callService("ECHO", "echo", [1]);
        rows.push({
          suite: "remote",
          name: `${transport} first call of a plugin not running (start on demand + call)`,
          value: performance.now() - t0,
          unit: "ms",
          note: `with ${n} installed`,
        });
      } finally {
        await Promise.all(lazy.map((h) => h.shutdown()));
      }
    }
  }
  return rows;
}

export default suite;
