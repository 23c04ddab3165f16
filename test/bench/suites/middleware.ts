import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openAgentHost, type AgentHost } from "../../../src/agent/index.ts";
import type { Stage } from "../../../src/agent/envelopes.ts";
import { setLogSink } from "../../../src/core/logger.ts";
import { createPluginExtensions, pluginServicesFor } from "../../../src/plugins/host-extensions.ts";
import { loadInThread } from "../../../src/plugins/wasm/bare.ts";
import type { WasmPluginInstance } from "../../../src/plugins/wasm/instance.ts";
import type { AdmittedPlugin } from "../../../src/plugins/types.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";

/**
 * Turn overhead of a chain of 4 WASM middlewares on all four stages, for a WAT-built and a JS-built (QuickJS)
 * middleware. The runtime's own cost per call (sandbox hop, envelope JSON and schema validation, status counting)
 * is the call's latency minus the component's own execution, timed inside its sandbox Worker (a Worker woken
 * for each call runs a big guest like QuickJS ~2x slower than a hot in-thread loop, which is shown beside it).
 */
const SUITE = "middleware";
const CHAIN = 4;
const TURNS = 150;
const CALLS = 2000;
const WARMUP = 300;
const RUNTIME_COST_TARGET_US = 50;

const ENVELOPE = {
  text: "please write to someone@example.com about the meeting at ten",
  channel: "bench",
  user_id: null,
  session_id: "bench",
  metadata: { source: "bench" },
};

function workspace(ctx: { tmp: string; root: string }, plugin: string | null): string {
  const root = join(ctx.tmp, plugin ?? "none");
  mkdirSync(join(root, "plugins"), { recursive: true });
  writeFileSync(join(root, "config.toml"), 'default_provider = "offline"\n[memory]\nbackend = "none"\n');
  for (let i = 1; plugin && i <= CHAIN; i++) {
    const dir = join(root, "plugins", `${plugin}-${i}`);
    cpSync(join(ctx.root, "plugins", "test-wasm2", plugin), dir, { recursive: true });
    const manifest = join(dir, "plugin.toml");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace(`name = "${plugin}"`, `name = "${plugin}-${i}"`));
  }
  return root;
}

async function time(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(WARMUP, n); i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = Bun.nanoseconds();
    await fn();
    samples.push((Bun.nanoseconds() - start) / 1000);
  }
  return samples;
}

async function turnSamples(host: AgentHost): Promise<number[]> {
  let n = 0;
  return time(TURNS, () => host.runTurn({ sessionId: `t${n++ % 8}`, channel: "bench", text: ENVELOPE.text }));
}

function admitted(root: string, plugin: string, capability: string): AdmittedPlugin {
  const dir = join(root, "plugins", `${plugin}-1`);
  return {
    name: `${plugin}-bare`,
    version: "0.1.0",
    kind: "wasm-component",
    dir,
    entryPath: join(dir, "plugin.wasm"),
    capabilities: [{ type: "middleware", name: capability }],
    resources: {
      maxMemoryMb: 64,
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

const suite: BenchSuite = async (ctx) => {
  setLogSink(() => {});
  const rows: BenchRow[] = [];
  const base = await openAgentHost({
    workspace: workspace(ctx, null),
    extend: createPluginExtensions({ cron: false }),
  });
  const baseline = stats(await turnSamples(base));
  await base.close();
  rows.push({ suite: SUITE, name: "turn without middleware (offline provider), p50", value: baseline.p50, unit: "us" });

  for (const [label, plugin, capability] of [
    ["WAT", "pass-mw", "pass"],
    ["JS (QuickJS)", "redact-mw", "redact-email"],
  ] as const) {
    const root = workspace(ctx, plugin);
    const host = await openAgentHost({ workspace: root, extend: createPluginExtensions({ cron: false }) });
    const services = pluginServicesFor(host.workspace.root)!;
    const turns = stats(await turnSamples(host));
    const stage: Stage = "inbound";
    const chain = stats(await time(CALLS, () => services.middleware.run(stage, ENVELOPE)));
    const generation = services.runtime.current();
    const instances = Array.from({ length: CHAIN }, (_, i) => generation.instance(`${plugin}-${i + 1}`)!);
    const sandboxes = instances.map((instance) => (instance as WasmPluginInstance).sandbox);
    const execution = sandboxes.reduce((sum, sandbox) => sum + sandbox.executionP50()!, 0) / CHAIN;
    // The same 4 sandboxed instances called one after another without the chain: the engine's hop alone.
    const json0 = JSON.stringify(ENVELOPE);
    const ref = { type: "middleware" as const, name: capability };
    const hops = stats(
      await time(CALLS, async () => {
        for (const instance of instances) await instance.invoke(ref, "process", [stage, json0]);
      }),
    );
    const hop = hops.p50 / CHAIN;
    const hopExecution = sandboxes.reduce((sum, sandbox) => sum + sandbox.executionP50()!, 0) / CHAIN;
    const bare = await loadInThread(admitted(root, plugin, capability), services.runtime.host);
    const json = JSON.stringify(ENVELOPE);
    const bareCall = stats(await time(CALLS, () => bare.call("process", [stage, json])));
    bare.close();
    await host.close();
    const perCall = chain.p50 / CHAIN;
    rows.push(
      {
        suite: SUITE,
        name: `turn overhead, chain of ${CHAIN} ${label} middlewares on all stages, p50`,
        value: Math.round(turns.p50 - baseline.p50),
        unit: "us",
        note: `${CHAIN * 4} middleware calls per turn; turn p50 ${Math.round(turns.p50)} us vs ${Math.round(baseline.p50)} us`,
      },
      {
        suite: SUITE,
        name: `${label} middleware call through the runtime (chain of ${CHAIN} / ${CHAIN}), p50`,
        value: perCall,
        unit: "us",
      },
      {
        suite: SUITE,
        name: `${label} component's own execution inside its sandbox Worker, p50`,
        value: Math.round(execution * 10) / 10,
        unit: "us",
        note: `the same call in a hot loop on the calling thread: ${bareCall.p50.toFixed(1)} us`,
      },
      {
        suite: SUITE,
        name: `${label} of which sandbox hop (4 sandboxed instances in a row, per call, minus execution), p50`,
        value: Math.round((hop - hopExecution) * 10) / 10,
        unit: "us",
        note: "src/plugins/wasm: Worker postMessage round trip, message schemas, output checks",
      },
      {
        suite: SUITE,
        name: `${label} of which chain layer (envelope JSON + schema, timer, status, tracking), p50`,
        value: Math.round((perCall - hop) * 10) / 10,
        unit: "us",
      },
      {
        suite: SUITE,
        name: `${label} runtime cost per middleware call (sandbox hop, envelope validation), p50`,
        value: Math.round((perCall - execution) * 10) / 10,
        unit: "us",
        target: { op: "<=", value: RUNTIME_COST_TARGET_US },
      },
    );
  }
  return rows;
};

export default suite;
