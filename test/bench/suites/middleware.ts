import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../../src/agent/index.ts";
import type { Stage } from "../../../src/contracts/envelopes.ts";
import { setLogSink } from "../../../src/core/logger.ts";
import { createPluginExtensions } from "../../../src/agent/plugin-extensions.ts";
import { loadInThread } from "../../../src/plugins/wasm/bare.ts";
import type { WasmPluginInstance } from "../../../src/plugins/wasm/instance.ts";
import { EXECUTION_TIME_SAMPLES } from "../../../src/plugins/wasm/limits.ts";
import type { AdmittedPlugin } from "../../../src/plugins/types.ts";
import { ensureExamplesBuilt } from "../../plugins/kit/examples-build.ts";
import { describeWarmup, warmUp, type Warmup } from "../jit-settle.ts";
import { stats, type BenchContext, type BenchRow, type BenchSuite } from "../types.ts";

/**
 * Turn overhead of a chain of 4 WASM middlewares on all four stages, for a WAT-built and a JS-built (QuickJS)
 * middleware. The runtime's own cost per call (sandbox hop, envelope JSON and schema validation, status counting)
 * is the call's latency minus the component's own execution, timed inside its sandbox Worker (a Worker woken
 * for each call runs a big guest like QuickJS ~2x slower than a hot in-thread loop, which is shown beside it).
 */
const SUITE = "middleware";
const CHAIN = 4;
const TURNS = 150;
/** Chain and hop calls are timed in alternating rounds (the same machine state for both); medians over rounds. */
const ROUNDS = 8;
/** `--quick`: turns, rounds and warm-up calls of the short pass. */
const QUICK = { turns: 20, rounds: 1, warmup: 30 };
/** Each sandbox's execution p50 (its last EXECUTION_TIME_SAMPLES calls) then covers exactly one round. */
const CALLS_PER_ROUND = EXECUTION_TIME_SAMPLES;
const WARMUP = 300;
/** Chain runs between two readings of the JIT threads' CPU time during the warm-up. */
const WARMUP_BLOCK_CHAINS = 250;
const RUNTIME_COST_TARGET_US = 50;

const ENVELOPE = {
  text: "please write to someone@example.com about the meeting at ten",
  channel: "bench",
  user_id: null,
  session_id: "bench",
  metadata: { source: "bench" },
};

/** Where a measured middleware is built: the WAT and QuickJS test fixtures, or an example built by `prx plugins build`. */
async function sourceOf(ctx: { root: string }, plugin: string): Promise<string> {
  if (plugin !== "pii-redact") return join(ctx.root, "test", "fixtures", "test-wasm2", plugin);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", PRX_LOG: "error" };
  return join((await ensureExamplesBuilt(env)).dir, plugin);
}

async function workspace(ctx: { tmp: string; root: string }, plugin: string | null): Promise<string> {
  const root = join(ctx.tmp, plugin ?? "none");
  mkdirSync(join(root, "plugins"), { recursive: true });
  writeFileSync(join(root, "config.toml"), 'default_provider = "offline"\nautonomy = { level = "full" }\n[memory]\nbackend = "none"\n');
  for (let i = 1; plugin && i <= CHAIN; i++) {
    const dir = join(root, "plugins", `${plugin}-${i}`);
    cpSync(await sourceOf(ctx, plugin), dir, { recursive: true });
    const manifest = join(dir, "plugin.toml");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace(`name = "${plugin}"`, `name = "${plugin}-${i}"`));
  }
  return root;
}

async function time(n: number, fn: () => Promise<unknown>, warmup = Math.min(WARMUP, n)): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = Bun.nanoseconds();
    await fn();
    samples.push((Bun.nanoseconds() - start) / 1000);
  }
  return samples;
}

async function turnSamples(host: AgentHost, quick: boolean): Promise<number[]> {
  let n = 0;
  return time(quick ? QUICK.turns : TURNS, () => host.runTurn({ sessionId: `t${n++ % 8}`, channel: "bench", text: ENVELOPE.text }));
}

/** The first chain member's own admission (its config and grants, as the runtime gave them), loaded once more. */
function admitted(instance: WasmPluginInstance): AdmittedPlugin {
  return { ...instance.plugin, name: `${instance.plugin.name}-bare` };
}

interface Measured {
  turns: number;
  perCall: number;
  execution: number;
  hop: number;
  layer: number;
  cost: number;
  /** Per chain run: its latency minus its own 4 executions, p50 / CHAIN. */
  runCost: number;
  warmed: Warmup;
  bareCall: number;
}

const PLUGINS = [
  ["WAT", "pass-mw", "pass"],
  ["JS (QuickJS)", "redact-mw", "redact-email"],
  ["kit-built (prx plugins build, pii-redact)", "pii-redact", "pii-redact"],
] as const;

/**
 * The plugin runtime with every plugin of the workspace in its first generation: by default a plugin still loading
 * after PLUGIN_JOIN_WAIT_MS joins a later one, and the bench needs all of its instances at once.
 */
const extensions = () => createPluginExtensions({ cron: false, joinAfterMs: Infinity });

/** Chain and hop timings of 4 sandboxed copies of one middleware (medians over `rounds` alternating rounds). */
async function measure(ctx: BenchContext, plugin: string, capability: string): Promise<Measured> {
  const quick = ctx.quick ?? false;
  const rounds = quick ? QUICK.rounds : ROUNDS;
  const warmup = quick ? QUICK.warmup : WARMUP;
  const root = await workspace(ctx, plugin);
  const host = await openAgentHost({ workspace: root, extend: extensions() });
  const services = host.plugins!;
  const turns = stats(await turnSamples(host, quick));
  const stage: Stage = "inbound";
  const generation = services.runtime.current();
  const instances = Array.from({ length: CHAIN }, (_, i) => {
    const instance = generation.instance(`${plugin}-${i + 1}`);
    if (!instance) throw new Error(`middleware ${plugin}-${i + 1} is not loaded in generation ${generation.number}`);
    return instance;
  });
  const sandboxes = instances.map((instance) => (instance as WasmPluginInstance).sandbox);
  const executionP50 = () => sandboxes.reduce((sum, sandbox) => sum + sandbox.executionP50()!, 0) / CHAIN;
  const runChain = async () => services.middleware.run(stage, ENVELOPE);
  // The same 4 sandboxed instances called one after another without the chain: the engine's hop alone. Each gets
  // what it gets in the chain (the reply of the one before: the first one may mask, the others then see the masked
  // envelope).
  const json = JSON.stringify(ENVELOPE);
  const ref = { type: "middleware" as const, name: capability };
  const runHops = async () => {
    let input = json;
    for (const instance of instances) {
      const reply = await instance.invoke(ref, "process", [stage, input]);
      if (typeof reply === "string") input = reply;
    }
  };
  // until the JIT threads settle (counted per middleware call): a short fixed warm-up measures the process while
  // JavaScriptCore still tiers the host's and a big guest's code up on the other CPU
  const warmed = await warmUp(
    process.pid,
    async () => {
      for (let i = 0; i < WARMUP_BLOCK_CHAINS; i++) await runChain();
      return WARMUP_BLOCK_CHAINS * CHAIN;
    },
    quick,
  );
  await time(warmup, runChain);
  await time(warmup, runHops);
  const perRound = { perCall: [] as number[], execution: [] as number[], cost: [] as number[], runCost: [] as number[] };
  const hopRound = { hop: [] as number[], layer: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    // each run's latency, and the same run minus its own 4 executions (a guest whose time varies, such as one
    // writing kv, makes the median of a sum differ from the sum of medians)
    const latencies: number[] = [];
    const runCosts: number[] = [];
    for (let i = 0; i < CALLS_PER_ROUND; i++) {
      const start = Bun.nanoseconds();
      await runChain();
      const latency = (Bun.nanoseconds() - start) / 1000;
      latencies.push(latency);
      runCosts.push(latency - sandboxes.reduce((sum, sandbox) => sum + sandbox.lastExecution()!, 0));
    }
    const perCallR = stats(latencies).p50 / CHAIN;
    const executionR = executionP50();
    const hopR = stats(await time(CALLS_PER_ROUND, runHops, 0)).p50 / CHAIN;
    perRound.perCall.push(perCallR);
    perRound.execution.push(executionR);
    perRound.cost.push(perCallR - executionR);
    perRound.runCost.push(stats(runCosts).p50 / CHAIN);
    hopRound.hop.push(hopR - executionP50());
    hopRound.layer.push(perCallR - hopR);
  }
  const median = (values: number[]) => stats(values).p50;
  const bare = await loadInThread(admitted(instances[0] as WasmPluginInstance), services.runtime.host);
  const bareCall = stats(await time(rounds * CALLS_PER_ROUND, () => bare.call("process", [stage, json]), Math.min(warmup, rounds * CALLS_PER_ROUND)));
  bare.close();
  await host.close();
  return {
    turns: turns.p50,
    perCall: median(perRound.perCall),
    execution: median(perRound.execution),
    hop: median(hopRound.hop),
    layer: median(hopRound.layer),
    cost: median(perRound.cost),
    runCost: median(perRound.runCost),
    warmed,
    bareCall: bareCall.p50,
  };
}

const tenth = (value: number) => Math.round(value * 10) / 10;
const costName = (label: string) => `${label} runtime cost per middleware call (sandbox hop, envelope validation), p50`;

/**
 * The runtime cost again in a child process pinned to one CPU (`taskset -c 0`): the main thread and the sandbox
 * Workers then hand over on one CPU, without waking the other one. On an idle VM that wake-up costs ~35-40 us
 * per hop in the hypervisor, which is not prx's; null when taskset is missing or the machine has one CPU.
 */
async function pinnedRows(ctx: BenchContext): Promise<BenchRow[] | null> {
  const taskset = Bun.which("taskset");
  if (!taskset || navigator.hardwareConcurrency < 2) return null;
  const tmp = join(ctx.tmp, "pinned");
  mkdirSync(tmp, { recursive: true });
  const argv = [taskset, "-c", "0", process.execPath, import.meta.path, "--pinned", ctx.root, tmp, ...(ctx.quick ? ["--quick"] : [])];
  const child = Bun.spawn(argv, {
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`pinned middleware run failed (exit ${child.exitCode})`);
  return JSON.parse(out) as BenchRow[];
}

const suite: BenchSuite = async (ctx) => {
  setLogSink(() => {});
  const rows: BenchRow[] = [];
  const base = await openAgentHost({ workspace: await workspace(ctx, null), extend: extensions() });
  const baseline = stats(await turnSamples(base, ctx.quick ?? false));
  await base.close();
  rows.push({ suite: SUITE, name: "turn without middleware (offline provider), p50", value: baseline.p50, unit: "us" });

  for (const [label, plugin, capability] of PLUGINS) {
    const m = await measure(ctx, plugin, capability);
    rows.push(
      {
        suite: SUITE,
        name: `turn overhead, chain of ${CHAIN} ${label} middlewares on all stages, p50`,
        value: Math.round(m.turns - baseline.p50),
        unit: "us",
        note: `${CHAIN * 4} middleware calls per turn; turn p50 ${Math.round(m.turns)} us vs ${Math.round(baseline.p50)} us`,
      },
      {
        suite: SUITE,
        name: `${label} middleware call through the runtime (chain of ${CHAIN} / ${CHAIN}), p50`,
        value: tenth(m.perCall),
        unit: "us",
        note: `median over ${ctx.quick ? QUICK.rounds : ROUNDS} rounds of ${CALLS_PER_ROUND} chain runs; ${describeWarmup(m.warmed).replace("turns", "calls").replace("us/turn", "us/call")}`,
      },
      {
        suite: SUITE,
        name: `${label} component's own execution inside its sandbox Worker, p50`,
        value: tenth(m.execution),
        unit: "us",
        note: `the same call in a hot loop on the calling thread: ${m.bareCall.toFixed(1)} us`,
      },
      {
        suite: SUITE,
        name: `${label} of which sandbox hop (4 sandboxed instances in a row, per call, minus execution), p50`,
        value: tenth(m.hop),
        unit: "us",
        note: "src/plugins/wasm: Worker postMessage round trip, message checks, output checks",
      },
      {
        suite: SUITE,
        name: `${label} of which chain layer (envelope JSON + schema, timer, status, tracking), p50`,
        value: tenth(m.layer),
        unit: "us",
      },
      {
        suite: SUITE,
        name: costName(label),
        value: tenth(m.cost),
        unit: "us",
        target: { op: "<=", value: RUNTIME_COST_TARGET_US },
      },
      {
        suite: SUITE,
        name: `${label} runtime cost per middleware call, each chain run minus its own executions, p50`,
        value: tenth(m.runCost),
        unit: "us",
        note: "the row above subtracts the executions' p50 from the runs' p50 instead",
      },
    );
  }
  rows.push(...((await pinnedRows(ctx)) ?? []));
  return rows;
};

if (import.meta.main && process.argv[2] === "--pinned") {
  setLogSink(() => {});
  const ctx = { root: process.argv[3]!, tmp: process.argv[4]!, binary: "", quick: process.argv[5] === "--quick" };
  const rows: BenchRow[] = [];
  // The short pass checks that the pinned run works with one middleware; the full run measures all three.
  for (const [label, plugin, capability] of ctx.quick ? PLUGINS.slice(0, 1) : PLUGINS) {
    const m = await measure(ctx, plugin, capability);
    rows.push({
      suite: SUITE,
      name: `${costName(label)}, process on one CPU`,
      value: tenth(m.cost),
      unit: "us",
      target: { op: "<=", value: RUNTIME_COST_TARGET_US },
      note: `taskset -c 0: no cross-CPU wake-up per hop; sandbox hop ${tenth(m.hop)} us, execution ${tenth(m.execution)} us; each run minus its own executions ${tenth(m.runCost)} us`,
    });
  }
  console.log(JSON.stringify(rows));
  process.exit(0);
}

export default suite;
