import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openSqliteStorage } from "../../../src/storage/index.ts";
import { openWorkspace } from "../../../src/core/workspace.ts";
import { ComponentArtifact, ComponentGuest, EvaluatedScripts } from "../../../src/plugins/wasm/guest/component.ts";
import { Meter, newInterruptFlag } from "../../../src/plugins/wasm/guest/meter.ts";
import { pluginInfo, type HostContext } from "../../../src/plugins/wasm/host/context.ts";
import { componentImports } from "../../../src/plugins/wasm/host/index.ts";
import { KvStore } from "../../../src/plugins/wasm/host/kv.ts";
import { instrumentModule } from "../../../src/plugins/wasm/instrument/module.ts";
import type { Metering } from "../../../src/plugins/wasm/instrument/plan.ts";
import { TRANSPILED_MODULE_NAME, transpileCached } from "../../../src/plugins/wasm/transpile.ts";
import type { AdmittedPlugin } from "../../../src/plugins/types.ts";
import { ensureSpinPlugins } from "../../fixtures/pdk-js/build.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";
import { WebSocketTable } from "../../../src/plugins/wasm/host/socket-table.ts";

/**
 * What instrumentation (src/plugins/wasm/instrument/) costs: the rewrite per MB of core module (the 12 MB
 * SpiderMonkey and the QuickJS components' modules), and the guest's own run time, in-thread, uninstrumented /
 * "interrupt" metering (every plugin) / "full" metering (plugins with max_fuel), for JavaScript guests counting in
 * a loop (spin-tool, built with componentize-js and with jco's QuickJS backend).
 */
const SUITE = "instrument";
let REWRITE_RUNS = 5;
/** Calls per variant before timing (JavaScriptCore tiers a 12 MB guest up over its first ~100 calls). */
let WARMUP = 200;
/** Variants are timed in alternating rounds (the same machine state for each); medians over rounds. */
let ROUNDS = 6;
const CALLS_PER_ROUND = 15;
/** Loop iterations of one spin-tool call: ~1-10 ms of guest time. */
let LOOPS = 20_000;
/** Counts of the short pass (`bun run bench --quick`). */
const QUICK = { REWRITE_RUNS: 1, WARMUP: 20, ROUNDS: 1, LOOPS: 2000 };

type Variant = "none" | Metering;
const VARIANTS: Variant[] = ["none", "interrupt", "full"];

function admitted(dir: string, name: string): AdmittedPlugin {
  return {
    name,
    version: "0.1.0",
    kind: "wasm-component",
    dir,
    entryPath: join(dir, "plugin.wasm"),
    capabilities: [{ type: "tool", name: "spin" }],
    resources: { maxMemoryMb: 64, maxExecutionTimeMs: 60_000, maxHttpRequestsPerCall: 0, maxKvStorageMb: 1, maxFuel: null },
    granted: new Set(["log", "config", "kv"]),
    config: {},
    httpAllowlist: [],
  };
}

const suite: BenchSuite = async (ctx) => {
  if (ctx.quick) ({ REWRITE_RUNS, WARMUP, ROUNDS, LOOPS } = QUICK);
  const rows: BenchRow[] = [];
  const built = await ensureSpinPlugins();
  const workspace = openWorkspace(join(ctx.tmp, "ws"));
  const storage = openSqliteStorage(workspace.dbPath);
  const kv = new KvStore(workspace.dbPath, "bench", 1);
  for (const [label, plugin] of [
    ["SpiderMonkey", "spin-tool"],
    ["QuickJS", "spin-tool-qjs"],
  ] as const) {
    const p = admitted(join(built, plugin), plugin);
    const transpiled = await transpileCached(plugin, readFileSync(p.entryPath), workspace.cacheDir, "local");
    const files = transpiled.meta.files.filter((f) => f.endsWith(".wasm"));
    const originals = Object.fromEntries(files.map((f) => [f, readFileSync(join(transpiled.dir, f))]));
    const megabytes = Object.values(originals).reduce((n, b) => n + b.length, 0) / (1024 * 1024);
    for (const metering of ["interrupt", "full"] as const) {
      const times: number[] = [];
      for (let run = 0; run < REWRITE_RUNS; run++) {
        const started = performance.now();
        for (const [file, bytes] of Object.entries(originals)) instrumentModule(bytes, file, metering);
        times.push(performance.now() - started);
      }
      const p50 = stats(times).p50;
      rows.push({
        suite: SUITE,
        name: `${label} component (${megabytes.toFixed(1)} MB of core modules): "${metering}" rewrite, p50 of ${REWRITE_RUNS}`,
        value: p50,
        unit: "ms",
        note: `${(p50 / megabytes).toFixed(1)} ms per MB`,
      });
    }
    const js = readFileSync(join(transpiled.dir, `${TRANSPILED_MODULE_NAME}.js`), "utf8");
    const guests: Partial<Record<Variant, ComponentGuest>> = {};
    for (const variant of VARIANTS) {
      const modules: Record<string, WebAssembly.Module> = {};
      for (const [file, bytes] of Object.entries(originals)) {
        modules[file] = await WebAssembly.compile(variant === "none" ? bytes : instrumentModule(bytes, file, variant).bytes);
      }
      const ctxFor: HostContext = {
        plugin: pluginInfo(p),
        granted: p.granted,
        capIndex: 0,
        capability: p.capabilities[0]!,
        canSubscribe: false,
        call: { httpRequests: 0 },
        kv,
        sockets: new WebSocketTable(),
        log: () => {},
        publish: () => {},
        rpc: () => Promise.reject(new Error("no rpc in this bench")),
      };
      const meter = new Meter(newInterruptFlag(), variant === "full" ? Number.MAX_SAFE_INTEGER : null);
      const artifact = new ComponentArtifact(js, modules, plugin, `${variant}`, new EvaluatedScripts());
      const imports = await componentImports(ctxFor, transpiled.meta.interfaces.imports);
      guests[variant] = await ComponentGuest.create(artifact, ctxFor, imports, meter);
    }
    const args = [JSON.stringify({ loops: LOOPS })];
    for (const variant of VARIANTS) for (let i = 0; i < WARMUP; i++) await guests[variant]!.call("execute", args);
    const rounds: Record<Variant, number[]> = { none: [], interrupt: [], full: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const variant of VARIANTS) {
        const samples: number[] = [];
        for (let i = 0; i < CALLS_PER_ROUND; i++) {
          const started = Bun.nanoseconds();
          await guests[variant]!.call("execute", args);
          samples.push((Bun.nanoseconds() - started) / 1e6);
        }
        rounds[variant].push(stats(samples).p50);
      }
    }
    const medians: Partial<Record<Variant, number>> = {};
    for (const variant of VARIANTS) {
      medians[variant] = stats(rounds[variant]).p50;
      rows.push({
        suite: SUITE,
        name: `${label} guest counting to ${LOOPS}, in-thread p50, ${variant === "none" ? "not instrumented" : `"${variant}" metering`}`,
        value: medians[variant]!,
        unit: "ms",
        ...(variant === "full" ? { note: `${guests.full!.lastFuel()} fuel units per call` } : {}),
      });
    }
    for (const variant of ["interrupt", "full"] as const) {
      rows.push({
        suite: SUITE,
        name: `${label} guest slowdown, "${variant}" metering`,
        value: (100 * (medians[variant]! - medians.none!)) / medians.none!,
        unit: "%",
      });
    }
  }
  kv.close();
  await storage.close();
  return rows;
};

export default suite;
