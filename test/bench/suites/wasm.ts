import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStorage } from "../../../src/storage/index.ts";
import { createLogger } from "../../../src/core/logger.ts";
import { openWorkspace } from "../../../src/core/workspace.ts";
import { loadInThread } from "../../../src/plugins/wasm/bare.ts";
import { SANDBOX_POOL_SIZE, transpileCached, wasmLoader } from "../../../src/plugins/wasm/index.ts";
import { sandboxWorkerPool } from "../../../src/plugins/wasm/sandbox/index.ts";
import type { AdmittedPlugin, PluginHostServices } from "../../../src/plugins/types.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";

const SUITE = "wasm";
let CALLS = 3000;
let WARMUP = 3000;
let RSS_PLUGINS = 8;
let LOADS = 8;
/** Counts of the short pass (`bun run bench --quick`). */
const QUICK = { CALLS: 300, WARMUP: 300, RSS_PLUGINS: 2, LOADS: 2 };
const OVERHEAD_TARGET_US = 40;

function plugin(
  root: string,
  dir: string,
  name: string,
  capName: string,
  kind: AdmittedPlugin["kind"],
): AdmittedPlugin {
  const base = join(root, "test", "fixtures", "test-wasm", dir);
  return {
    name,
    version: "0.1.0",
    kind,
    dir: base,
    entryPath: join(base, "plugin.wasm"),
    capabilities: [{ type: "tool", name: capName }],
    resources: {
      maxMemoryMb: 32,
      maxExecutionTimeMs: 5000,
      maxHttpRequestsPerCall: 4,
      maxKvStorageMb: 1,
      maxFuel: null,
    },
    granted: new Set(["log", "config", "kv"]),
    config: {},
    httpAllowlist: [],
  };
}

async function time(calls: number, fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = Bun.nanoseconds();
    await fn();
    samples.push((Bun.nanoseconds() - start) / 1000);
  }
  return samples;
}

function rssMb(): number {
  Bun.gc(true);
  return process.memoryUsage().rss / (1024 * 1024);
}

const suite: BenchSuite = async (ctx) => {
  if (ctx.quick) ({ CALLS, WARMUP, RSS_PLUGINS, LOADS } = QUICK);
  const workspace = openWorkspace(join(ctx.tmp, "ws"));
  mkdirSync(workspace.cacheDir, { recursive: true });
  const storage = openSqliteStorage(workspace.dbPath);
  const host: PluginHostServices = {
    workspace,
    storage,
    events: { publish() {} },
    memory: () => null,
    logger: createLogger("bench"),
  };
  const rows: BenchRow[] = [];
  const cases = [
    { label: "core module", p: plugin(ctx.root, "core-tool", "bench-core", "core_echo", "wasm-module") },
    { label: "component", p: plugin(ctx.root, "echo-tool", "bench-component", "echo_upper", "wasm-component") },
  ];

  // first-load transpile (cache miss) of a small component, then a cache hit
  const echoBytes = new Uint8Array(await Bun.file(cases[1]!.p.entryPath).arrayBuffer());
  let started = performance.now();
  await transpileCached("bench", echoBytes, workspace.cacheDir);
  rows.push({
    suite: SUITE,
    name: "first-load transpile (cache miss, small component)",
    value: performance.now() - started,
    unit: "ms",
  });
  started = performance.now();
  await transpileCached("bench", echoBytes, workspace.cacheDir);
  rows.push({ suite: SUITE, name: "transpile cache hit", value: performance.now() - started, unit: "ms" });
  const tsBytes = new Uint8Array(
    await Bun.file(join(ctx.root, "test", "fixtures", "test-wasm", "ts-tool", "plugin.wasm")).arrayBuffer(),
  );
  started = performance.now();
  await transpileCached("bench-ts", tsBytes, workspace.cacheDir);
  rows.push({
    suite: SUITE,
    name: "first-load transpile (cache miss, 1.6 MB QuickJS component)",
    value: performance.now() - started,
    unit: "ms",
  });

  for (const c of cases) {
    const p = c.p;
    let label = c.label;
    const cap = p.capabilities[0]!;
    const bare = await loadInThread(p, host);
    // core_echo's execute writes kv (SQLite) on every call: time get-spec there so the numbers show the call path
    const fn = p.kind === "wasm-module" ? "get-spec" : "execute";
    const args = fn === "execute" ? ["hello"] : [];
    const bareSamples = await time(CALLS, () => bare.call(fn, args));
    bare.close();
    const inst = await wasmLoader.load(p, host);
    const boxSamples = await time(CALLS, () => inst.invoke(cap, fn, args));
    await inst.release();
    const b = stats(bareSamples);
    const s = stats(boxSamples);
    label = `${label} ${fn}`;
    rows.push({ suite: SUITE, name: `${label} tool call, bare in-thread p50`, value: b.p50, unit: "us" });
    rows.push({ suite: SUITE, name: `${label} tool call, bare in-thread p99`, value: b.p99, unit: "us" });
    rows.push({ suite: SUITE, name: `${label} tool call, sandboxed p50`, value: s.p50, unit: "us" });
    rows.push({ suite: SUITE, name: `${label} tool call, sandboxed p99`, value: s.p99, unit: "us" });
    rows.push({
      suite: SUITE,
      name: `${label} sandbox overhead p50 (sandboxed - bare)`,
      value: s.p50 - b.p50,
      unit: "us",
      target: { op: "<=", value: OVERHEAD_TARGET_US },
    });
  }

  // one cached plugin's load: with a pre-started pool Worker (another sandbox holds the pool open), and cold
  for (const c of cases) {
    const cap = c.p.capabilities[0]!;
    const keeper = await wasmLoader.load({ ...c.p, name: `${c.p.name}-keeper` }, host);
    const warm: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      await sandboxWorkerPool.settled();
      const t0 = performance.now();
      const inst = await wasmLoader.load(c.p, host);
      warm.push(performance.now() - t0);
      await inst.invoke(cap, "get-spec", []);
      await inst.release();
    }
    await keeper.release();
    const cold: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const t0 = performance.now();
      const inst = await wasmLoader.load(c.p, host); // no other sandbox: the pool is empty
      cold.push(performance.now() - t0);
      await inst.release();
    }
    rows.push({
      suite: SUITE,
      name: `${c.label}: load of one cached plugin, pre-started pool Worker p50`,
      value: stats(warm).p50,
      unit: "ms",
    });
    rows.push({ suite: SUITE, name: `${c.label}: load of one cached plugin, cold Worker p50`, value: stats(cold).p50, unit: "ms" });
  }

  // RSS of the idle pool: one loaded plugin holds the pool open, which pre-starts min(SANDBOX_POOL_SIZE, holders)
  {
    const p = plugin(ctx.root, "echo-tool", "bench-idle", "echo_upper", "wasm-component");
    const holds = Array.from({ length: SANDBOX_POOL_SIZE - 1 }, () => sandboxWorkerPool.hold());
    const base = rssMb();
    const inst = await wasmLoader.load(p, host);
    await sandboxWorkerPool.settled();
    const idle = sandboxWorkerPool.stats().idle;
    const full = rssMb();
    await inst.release();
    for (const release of holds) release();
    rows.push({
      suite: SUITE,
      name: "RSS per idle pre-started pool Worker",
      value: (full - base) / Math.max(1, idle + 1),
      unit: "MB",
      note: `${idle} idle + 1 loaded: ${base.toFixed(0)} -> ${full.toFixed(0)} MB (counts the loaded plugin's Worker too)`,
    });
  }

  // RSS per loaded plugin: several sandboxed components (each its own Worker)
  const before = rssMb();
  const loaded = [];
  for (let i = 0; i < RSS_PLUGINS; i++) {
    const p = plugin(ctx.root, "echo-tool", `bench-rss-${i}`, "echo_upper", "wasm-component");
    const inst = await wasmLoader.load(p, host);
    await inst.invoke(p.capabilities[0]!, "execute", ["warm"]);
    loaded.push(inst);
  }
  await sandboxWorkerPool.settled();
  const idle = sandboxWorkerPool.stats().idle;
  const after = rssMb();
  rows.push({
    suite: SUITE,
    name: "RSS per loaded plugin (small component, own Worker, with its share of the idle pool)",
    value: (after - before) / RSS_PLUGINS,
    unit: "MB",
    note: `${RSS_PLUGINS} plugins + ${idle} idle pool Workers: ${before.toFixed(0)} -> ${after.toFixed(0)} MB`,
  });
  await Promise.all(loaded.map((i) => i.release()));
  await storage.close();
  return rows;
};

export default suite;
