import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStorage } from "../../../src/storage/index.ts";
import { createLogger } from "../../../src/core/logger.ts";
import { openWorkspace } from "../../../src/core/workspace.ts";
import { loadInThread } from "../../../src/plugins/wasm/bare.ts";
import { SANDBOX_WORKERS, transpileCached, wasmLoader } from "../../../src/plugins/wasm/index.ts";
import { sandboxWorkerPool } from "../../../src/plugins/wasm/sandbox/index.ts";
import type { AdmittedPlugin, PluginHostServices } from "../../../src/plugins/types.ts";
import { ensureExamplesBuilt } from "../../plugins/kit/examples-build.ts";
import { growthRows } from "../growth.ts";
import { stats, type BenchContext, type BenchRow, type BenchSuite } from "../types.ts";

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

/** Sizes of the installed-plugins rows (copies of a kit-built QuickJS plugin in one workspace). */
const INSTALLED = { full: [1, 10, 40], quick: [1, 10] } as const;
/** Per plugin, beyond its guest's own linear memory (pii-redact's QuickJS heap: 1.4 MB). */
const INSTALLED_RSS_TARGET_MB = 3;

interface Installed {
  n: number;
  rssMb: number;
  threads: number;
  idleCpuPct: number;
}

/** One child process (../wasm-installed.ts) with `n` installed copies of the plugin in `source`. */
async function installed(source: string, workspace: string, n: number): Promise<Installed> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "..", "wasm-installed.ts"), source, workspace, String(n)], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`wasm-installed.ts with ${n} plugins failed (exit ${child.exitCode})`);
  return JSON.parse(out.trim().split("\n").at(-1)!) as Installed;
}

/** Distinct kit-built plugins called once, then stopped for being idle (../wasm-called-idle.ts, a child process). */
const CALLED_IDLE_PLUGINS = { full: 30, quick: 4 };

async function calledIdleRows(ctx: BenchContext): Promise<BenchRow[]> {
  const n = ctx.quick ? CALLED_IDLE_PLUGINS.quick : CALLED_IDLE_PLUGINS.full;
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "..", "wasm-called-idle.ts"), String(n)], { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`wasm-called-idle.ts with ${n} plugins failed (exit ${child.exitCode})`);
  const r = JSON.parse(out.trim().split("\n").at(-1)!) as { before: number; loaded: number; running: number; oneRunning: number; noneRunning: number };
  const note = `RSS ${r.before.toFixed(0)} MB before, ${r.loaded.toFixed(0)} loaded, ${r.running.toFixed(0)} with every guest running, ${r.oneRunning.toFixed(0)} with one running, ${r.noneRunning.toFixed(0)} with none`;
  const name = `${n} distinct kit-built plugins called once, then stopped for being idle`;
  return [
    { suite: SUITE, name: `${name}: RSS per plugin while running`, value: (r.running - r.before) / n, unit: "MB", note },
    { suite: SUITE, name: `${name}: RSS per stopped plugin, one guest still running`, value: (r.oneRunning - r.before) / n, unit: "MB", note },
    { suite: SUITE, name: `${name}: RSS per stopped plugin, none running`, value: (r.noneRunning - r.before) / n, unit: "MB", note },
  ];
}

/**
 * Installed WASM plugins (kit-built QuickJS, the pii-redact example built by `prx plugins build`), opened as the
 * gateway opens them, each called once: RSS and threads each adds over the same host without plugins, at N = 1 / 10
 * / 40, their growth exponents, and the process's idle CPU with the most plugins.
 */
async function installedRows(ctx: BenchContext): Promise<BenchRow[]> {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", PRX_LOG: "error" };
  const source = join((await ensureExamplesBuilt(env)).dir, "pii-redact");
  const workspace = join(ctx.tmp, "installed");
  await installed(source, workspace, 1); // fills the workspace's transpile cache, as a first start would
  const base = await installed(source, workspace, 0);
  const sizes = ctx.quick ? INSTALLED.quick : INSTALLED.full;
  const measured = new Map<number, Installed>();
  const at = async (n: number) => {
    let m = measured.get(n);
    if (!m) measured.set(n, (m = await installed(source, workspace, n)));
    return m;
  };
  const name = "installed WASM plugins (kit-built QuickJS)";
  const rows: BenchRow[] = [];
  rows.push(
    ...(await growthRows({
      suite: SUITE,
      name: `${name}, RSS added per plugin`,
      per: "plugins",
      unit: "MB",
      sizes,
      grow: () => {},
      cost: async (n) => ((await at(n)).rssMb - base.rssMb) / n,
      target: { size: sizes.at(-1)!, op: "<=", value: INSTALLED_RSS_TARGET_MB + 1.4 },
      note: `over the same host without plugins (${base.rssMb.toFixed(0)} MB); includes the guest's 1.4 MB linear memory`,
    })),
  );
  rows.push(
    ...(await growthRows({
      suite: SUITE,
      name: `${name}, threads added`,
      per: "plugins",
      unit: "count",
      sizes,
      grow: () => {},
      cost: async (n) => Math.max(1, (await at(n)).threads - base.threads),
      note: `over the same host without plugins (${base.threads} threads); bounded by the pool (SANDBOX_WORKERS = ${SANDBOX_WORKERS})`,
    })),
  );
  const most = await at(sizes.at(-1)!);
  rows.push({
    suite: SUITE,
    name: `${name}, idle CPU of the process @${most.n} plugins`,
    value: most.idleCpuPct,
    unit: "%",
    note: `without plugins: ${base.idleCpuPct.toFixed(1)} %; over 2 s once every plugin answered`,
  });
  return rows;
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
  await transpileCached("bench", echoBytes, workspace.cacheDir, "local");
  rows.push({
    suite: SUITE,
    name: "first-load transpile (cache miss, small component)",
    value: performance.now() - started,
    unit: "ms",
  });
  started = performance.now();
  await transpileCached("bench", echoBytes, workspace.cacheDir, "local");
  rows.push({ suite: SUITE, name: "transpile cache hit", value: performance.now() - started, unit: "ms" });
  const tsBytes = new Uint8Array(
    await Bun.file(join(ctx.root, "test", "fixtures", "test-wasm", "ts-tool", "plugin.wasm")).arrayBuffer(),
  );
  started = performance.now();
  await transpileCached("bench-ts", tsBytes, workspace.cacheDir, "local");
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

  // one cached plugin's load: into a running pool Worker (another sandbox holds the pool open), and cold
  for (const c of cases) {
    const cap = c.p.capabilities[0]!;
    const keepers = [];
    for (let i = 0; i < SANDBOX_WORKERS; i++) keepers.push(await wasmLoader.load({ ...c.p, name: `${c.p.name}-keeper-${i}` }, host));
    const warm: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const t0 = performance.now();
      const inst = await wasmLoader.load(c.p, host);
      warm.push(performance.now() - t0);
      await inst.invoke(cap, "get-spec", []);
      await inst.release();
    }
    await Promise.all(keepers.map((k) => k.release()));
    const cold: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const t0 = performance.now();
      const inst = await wasmLoader.load(c.p, host); // no other sandbox: no Worker is running
      cold.push(performance.now() - t0);
      await inst.release();
    }
    rows.push({
      suite: SUITE,
      name: `${c.label}: load of one cached plugin into a running pool Worker p50`,
      value: stats(warm).p50,
      unit: "ms",
    });
    rows.push({ suite: SUITE, name: `${c.label}: load of one cached plugin, cold Worker p50`, value: stats(cold).p50, unit: "ms" });
  }

  // RSS per loaded plugin: several sandboxed small components sharing the pool's Workers
  const before = rssMb();
  const loaded = [];
  for (let i = 0; i < RSS_PLUGINS; i++) {
    const p = plugin(ctx.root, "echo-tool", `bench-rss-${i}`, "echo_upper", "wasm-component");
    const inst = await wasmLoader.load(p, host);
    await inst.invoke(p.capabilities[0]!, "execute", ["warm"]);
    loaded.push(inst);
  }
  const workers = sandboxWorkerPool.stats().workers;
  const after = rssMb();
  rows.push({
    suite: SUITE,
    name: "RSS per loaded plugin (small component, in a shared pool Worker)",
    value: (after - before) / RSS_PLUGINS,
    unit: "MB",
    note: `${RSS_PLUGINS} plugins in ${workers} Workers: ${before.toFixed(0)} -> ${after.toFixed(0)} MB`,
  });
  await Promise.all(loaded.map((i) => i.release()));
  rows.push(...(await installedRows(ctx)));
  rows.push(...(await calledIdleRows(ctx)));
  await storage.close();
  return rows;
};

export default suite;
