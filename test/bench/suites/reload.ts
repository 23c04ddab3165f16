/**
 * Reload latency with 10 cached plugins: a full reload (every plugin rebuilt) <= 200 ms, a reload of one of them (the
 * nine others carried over with their live sandboxes) <= 20 ms. Ten copies of a tool plugin under different
 * names (and tool names) run through the real WASM engine, in the shared sandbox Workers: once as components (the echo
 * test plugin of test/fixtures/test-wasm rebuilt with ten tool names; transpile output cached after the first load) and
 * once as WAT-built core modules. A full reload builds a complete candidate (discover, admit, load all ten, get-spec
 * for every tool) and swaps it in; releasing the old generation happens after the swap and is reported separately.
 * Full reloads run twice: back to back (the next reload starts as soon as the previous generation is released) and
 * spaced (after every sandbox Worker has settled). The old generation's sandboxes hold the pool's Workers while the
 * new one loads, so either way each load only instantiates in a running Worker. A last row isolates the runtime's
 * own cost with an instant loader.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { componentEmbed, componentNew, parse } from "@bytecodealliance/jco";
import { ConfigSchema } from "../../../src/config/schema.ts";
import { openSqliteStorage } from "../../../src/storage/index.ts";
import { nullPublisher } from "../../../src/core/events.ts";
import { createLogger } from "../../../src/core/logger.ts";
import { openWorkspace } from "../../../src/core/workspace.ts";
import { getPluginRuntime } from "../../../src/plugins/runtime/index.ts";
import type { PluginLoader } from "../../../src/plugins/types.ts";
import { wasmLoader } from "../../../src/plugins/wasm/index.ts";
import { sandboxWorkerPool } from "../../../src/plugins/wasm/sandbox/index.ts";
import { expandWat, WIT_SOURCE } from "../../fixtures/test-wasm/build.ts";
import { manifest, toolModule, writePlugin } from "../../plugins/runtime/helpers.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";

const PLUGINS = 10;
let RELOADS = 12;
const SUITE = "reload";
const ECHO_WAT = join(import.meta.dir, "../../fixtures/test-wasm/src/echo-tool.wat");

async function echoComponent(tool: string): Promise<Uint8Array> {
  const source = readFileSync(ECHO_WAT, "utf8").replace('@str $name "echo_upper"', `@str $name "${tool}"`);
  const core = await parse(expandWat(source));
  return componentNew(await componentEmbed({ binary: core, witSource: WIT_SOURCE, world: "prx:plugin/tool@0.1.0" }));
}

function openRuntime(root: string, loader: PluginLoader) {
  const workspace = openWorkspace(root);
  const storage = openSqliteStorage(workspace.dbPath);
  const runtime = getPluginRuntime(
    workspace,
    { storage, events: nullPublisher, memory: () => null, logger: createLogger("bench.reload") },
    // every build waits for every plugin: the rows time ready plugins, and a start on a loaded machine outlasts the join wait
    { config: ConfigSchema.parse({}), loaders: [loader], joinAfterMs: Infinity },
  );
  return { workspace, runtime, close: () => runtime.stop().then(() => storage.close()) };
}

async function measure(root: string, label: string, build: (tool: string) => Promise<Uint8Array>): Promise<BenchRow[]> {
  const loads: number[] = [];
  const timed: PluginLoader = {
    kinds: wasmLoader.kinds,
    async load(plugin, host) {
      const started = performance.now();
      const instance = await wasmLoader.load(plugin, host);
      loads.push(performance.now() - started);
      return instance;
    },
  };
  const { workspace, runtime, close } = openRuntime(root, timed);
  try {
    for (let i = 0; i < PLUGINS; i++) {
      const tool = `bench_tool_${i}`;
      writePlugin(workspace, `bench-${i}`, manifest({ name: `bench-${i}`, tools: [tool] }), await build(tool));
    }
    let started = performance.now();
    const first = await runtime.start();
    const startMs = performance.now() - started;
    const failed = first.plugins.filter((p) => p.state !== "active");
    if (failed.length) throw new Error(`plugins failed to load: ${failed.map((p) => `${p.name}: ${p.error?.message}`).join("; ")}`);
    await runtime.reload(); // warm
    await runtime.settled();
    loads.length = 0;
    const reloads: number[] = [];
    const release: number[] = [];
    for (let i = 0; i < RELOADS; i++) {
      started = performance.now();
      await runtime.reload(undefined);
      reloads.push(performance.now() - started);
      started = performance.now();
      await runtime.settled();
      release.push(performance.now() - started);
    }
    const all = stats(reloads);
    const oneLoad = stats(loads).p50;
    const spaced: number[] = [];
    for (let i = 0; i < RELOADS; i++) {
      await sandboxWorkerPool.settled();
      started = performance.now();
      await runtime.reload(undefined);
      spaced.push(performance.now() - started);
      await runtime.settled();
    }
    const warm = stats(spaced);
    const one: number[] = [];
    for (let i = 0; i < RELOADS; i++) {
      await sandboxWorkerPool.settled();
      started = performance.now();
      await runtime.reload("bench-3");
      one.push(performance.now() - started);
      await runtime.settled();
    }
    const carried = runtime.current().plugins.filter((p) => p.outcome === "carried_over").length;
    if (carried !== PLUGINS - 1) throw new Error(`a named reload carried ${carried} plugins over, expected ${PLUGINS - 1}`);
    const underLoad = await reloadsUnderCalls(runtime);
    return [
      { suite: SUITE, name: `${label}: start (first load${label.includes("component") ? ", transpile" : ""})`, value: startMs, unit: "ms" },
      {
        suite: SUITE,
        name: `${label}: full reload of ${PLUGINS} cached plugins p50`,
        value: all.p50,
        unit: "ms",
        target: { op: "<=", value: 200 },
        note: `${RELOADS} full reloads back to back`,
      },
      { suite: SUITE, name: `${label}: full reload of ${PLUGINS} cached plugins p99`, value: all.p99, unit: "ms" },
      {
        suite: SUITE,
        name: `${label}: full reload of ${PLUGINS} cached plugins, Workers settled, p50`,
        value: warm.p50,
        unit: "ms",
        target: { op: "<=", value: 200 },
        note: `${RELOADS} full reloads, each after every sandbox Worker has settled`,
      },
      { suite: SUITE, name: `${label}: full reload of ${PLUGINS} cached plugins, Workers settled, p99`, value: warm.p99, unit: "ms" },
      {
        suite: SUITE,
        name: `${label}: reload of 1 of ${PLUGINS} cached plugins p50`,
        value: stats(one).p50,
        unit: "ms",
        target: { op: "<=", value: 20 },
        note: `${RELOADS} named reloads: one plugin rebuilt, ${PLUGINS - 1} carried over`,
      },
      { suite: SUITE, name: `${label}: reload of 1 of ${PLUGINS} cached plugins p99`, value: stats(one).p99, unit: "ms" },
      {
        suite: SUITE,
        name: `${label}: failed tool calls during ${STORM_RELOADS} reloads of one plugin, ${STORM_CALLERS} callers`,
        value: underLoad.failed,
        unit: "count",
        target: { op: "<=", value: 0 },
        note: `${underLoad.calls} calls to the reloaded plugin and to a carried-over one`,
      },
      {
        suite: SUITE,
        name: `${label}: one plugin's load inside a back-to-back reload (wasmLoader.load, concurrent) p50`,
        value: oneLoad,
        unit: "ms",
      },
      { suite: SUITE, name: `${label}: release of the old generation after the swap p50`, value: stats(release).p50, unit: "ms" },
    ];
  } finally {
    await close();
  }
}

let STORM_RELOADS = 100;
/** Reloads of the short pass (`bun run bench --quick`). */
const QUICK = { RELOADS: 3, STORM_RELOADS: 10 };
const STORM_CALLERS = 4;

/** STORM_CALLERS callers call a tool of bench-3 and of bench-5 in turn while bench-3 is reloaded STORM_RELOADS times. */
async function reloadsUnderCalls(runtime: ReturnType<typeof getPluginRuntime>): Promise<{ calls: number; failed: number }> {
  let reloading = true;
  let calls = 0;
  let failed = 0;
  const context = () => ({ sessionId: "bench", workspace: "/tmp", signal: new AbortController().signal });
  const caller = async () => {
    for (let n = 0; reloading; n++) {
      const tool = runtime.tools.get(n % 2 === 0 ? "bench_tool_3" : "bench_tool_5");
      const result = tool ? await tool.execute({}, context()) : null;
      calls++;
      if (!result?.success) failed++;
    }
  };
  const callers = Array.from({ length: STORM_CALLERS }, caller);
  for (let i = 0; i < STORM_RELOADS; i++) await runtime.reload("bench-3");
  reloading = false;
  await Promise.all(callers);
  await runtime.settled();
  return { calls, failed };
}

/** The runtime's own cost per reload (discover, parse, admit, get-spec, swap, release) with an instant loader. */
async function runtimeOwnCost(root: string): Promise<BenchRow> {
  const instant: PluginLoader = {
    kinds: ["wasm-module"],
    async load(plugin) {
      const spec = { name: plugin.capabilities[0]!.name, description: "d", parametersSchema: "{}" };
      return { plugin, invoke: async () => spec, release: async () => {} };
    },
  };
  const { workspace, runtime, close } = openRuntime(root, instant);
  const samples: number[] = [];
  try {
    const header = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
    for (let i = 0; i < PLUGINS; i++) writePlugin(workspace, `bench-${i}`, manifest({ name: `bench-${i}`, tools: [`bench_tool_${i}`] }), header);
    await runtime.start();
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      await runtime.reload();
      await runtime.settled();
      samples.push(performance.now() - started);
    }
  } finally {
    await close();
  }
  return {
    suite: SUITE,
    name: `runtime's own cost per reload of ${PLUGINS} plugins (instant loader) p50`,
    value: stats(samples).p50,
    unit: "ms",
    note: "discovery, manifest parse, admission, get-spec, swap and release; no plugin code",
  };
}

const suite: BenchSuite = async ({ tmp, quick }) => {
  if (quick) ({ RELOADS, STORM_RELOADS } = QUICK);
  return [
    ...(await measure(join(tmp, "components"), "components", echoComponent)),
    ...(await measure(join(tmp, "modules"), "core modules", (tool) => toolModule({ tool, output: "out" }))),
    await runtimeOwnCost(join(tmp, "own")),
  ];
};

export default suite;
