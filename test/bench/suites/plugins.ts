/**
 * What installed plugins cost a turn, and what a reload of one costs, as the number of installed plugins grows.
 *
 * A workspace gets N = 1 / 10 / 100 plugins in a fixed mix, then the built gateway serves turns through
 * /v1/chat/completions against the fake provider in its own process. In these turns the model calls no tool. Two mixes:
 * "mixed" (per ten: four kit-built WASM tools, two kit-built hooks, one kit-built middleware, three remote
 * elizaOS-style plugins), in which
 *   - the tools take no part (they are only offered to the model),
 *   - the hooks take no part (they subscribe to `prx.lifecycle.tool_call`, which a turn without a tool call never emits),
 *   - the middleware (pii-redact, every stage) takes part: four guest calls per turn, its own work,
 *   - the remote plugins (copies of plugins/example-remote: an action, a provider, a service, a route and an event
 *     handler) take part through their provider, which elizaOS composes into every prompt: one RPC each per turn;
 * and "taking no part" (per ten: five tools, two hooks, three remote plugins without their provider), where no plugin
 * has anything to do in a turn: its turn overhead should not grow with N.
 * Measured per size: turn overhead p50 (gateway latency minus the fake's own time minus the direct path's network
 * floor, as in ../turn-overhead.ts), the gateway's CPU per turn (all its threads, /proc/PID/stat, which includes the
 * sandbox and remote-plugin Worker threads), and the time of `POST /api/plugins/<one tool>/reload`. Each is printed
 * with its growth exponent over the sizes (../growth.ts).
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startStandaloneFake, type StandaloneFake } from "../announce.ts";
import { growthRows } from "../growth.ts";
import { ensureExamplesBuilt } from "../../plugins/kit/examples-build.ts";
import { stats, type BenchContext, type BenchRow, type BenchSuite } from "../types.ts";
import { ConfigSchema } from "../../../src/config/schema.ts";
import { nullPublisher } from "../../../src/core/events.ts";
import { createLogger } from "../../../src/core/logger.ts";
import { openWorkspace } from "../../../src/core/workspace.ts";
import { getPluginRuntime } from "../../../src/plugins/runtime/index.ts";
import type { PluginLoader } from "../../../src/plugins/types.ts";
import { openSqliteStorage } from "../../../src/storage/index.ts";
import { manifest, writePlugin } from "../../plugins/runtime/helpers.ts";

const SUITE = "plugins";
/** `PRX_BENCH_PLUGIN_SIZES=10` measures one size (two are needed for an exponent). */
let SIZES = process.env.PRX_BENCH_PLUGIN_SIZES?.split(",").map(Number) ?? [1, 10, 100];
let WARMUP_TURNS = 150;
let TURNS = 200;
let RELOADS = 9;
/** Counts of the short pass (`bun run bench --quick`). */
const QUICK = { SIZES: [1, 10], WARMUP_TURNS: 20, TURNS: 30, RELOADS: 2 };
/** The fake answers after this long (its own time is subtracted per turn). */
const FAKE_LATENCY_MS = 5;
const MIXES = {
  mixed: ["tool", "remote", "hook", "tool", "middleware", "remote", "tool", "hook", "remote", "tool"],
  "taking no part": ["tool", "quiet-remote", "hook", "tool", "tool", "quiet-remote", "tool", "hook", "quiet-remote", "tool"],
} as const;
type Mix = keyof typeof MIXES;
type Kind = (typeof MIXES)[Mix][number];
/** `PRX_BENCH_PLUGIN_MIXES=mixed` runs one mix (a name of no mix: only the in-process rows). */
const MIX_NAMES = (process.env.PRX_BENCH_PLUGIN_MIXES?.split(",") ?? Object.keys(MIXES)).filter((m): m is Mix => m in MIXES);
const EXAMPLE_REMOTE = resolve(import.meta.dir, "../../../plugins/example-remote");

const env = (tmp: string) => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tmp, PRX_LOG: "error" });

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/** /proc/PID/stat utime + stime of every thread of the process, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

export interface Fixture {
  ws: string;
  /** Plugin name -> its kind, in install order. */
  installed: Map<string, Kind>;
  config: string[];
}

/** Adds plugins until the workspace holds `size`, each a copy of its kind's plugin under its own name and tool names. */
export function grow(fixture: Fixture, built: string, size: number, mix: Mix = "mixed"): void {
  const plugins = join(fixture.ws, "plugins");
  mkdirSync(plugins, { recursive: true });
  for (let i = fixture.installed.size; i < size; i++) {
    const kind: Kind = MIXES[mix][i % MIXES[mix].length]!;
    const name = `${kind}-${i}`;
    const dir = join(plugins, name);
    if (kind === "remote" || kind === "quiet-remote") {
      cpSync(EXAMPLE_REMOTE, dir, { recursive: true, filter: (src) => !src.endsWith(".test.ts") && !src.endsWith("README.md") });
      const rename = (file: string) =>
        writeFileSync(join(dir, file), readFileSync(join(dir, file), "utf8").replaceAll("example-remote", name).replaceAll("REMEMBER_NOTE", `REMEMBER_NOTE_${i}`));
      rename("plugin.toml");
      rename("plugin.ts");
      if (kind === "quiet-remote") {
        const source = readFileSync(join(dir, "plugin.ts"), "utf8");
        writeFileSync(join(dir, "plugin.ts"), source.replace("  providers: [timeOfDay],\n", ""));
      }
    } else {
      const example = { tool: "notes-tool", hook: "audit-hook", middleware: "pii-redact" }[kind];
      mkdirSync(dir);
      cpSync(join(built, example, "plugin.wasm"), join(dir, "plugin.wasm"));
      let manifest = readFileSync(join(built, example, "plugin.toml"), "utf8").replace(`name = "${example}"`, `name = "${name}"`);
      if (kind === "hook") manifest = manifest.replace('events = ["prx.lifecycle.*"]', 'events = ["prx.lifecycle.tool_call"]');
      writeFileSync(join(dir, "plugin.toml"), manifest);
      if (kind === "tool") fixture.config.push(`[plugins.${name}.tool_names]\nnotes = "notes_${i}"\n`);
    }
    fixture.installed.set(name, kind);
  }
}

export function writeConfig(fixture: Fixture, fakeUrl: string): void {
  writeFileSync(
    join(fixture.ws, "config.toml"),
    `default_provider = "fake"\nautonomy = { level = "full" }\ndefault_model = "fake-model"\n[reliability]\nretries = 0\n[providers.fake]\nkind = "openai-compatible"\n` +
      `base_url = "${fakeUrl}"\nmodels = ["fake-model"]\n[gateway]\nrate_limit_per_minute = 100000000\n` +
      `rate_limit_per_token_per_minute = 100000000\n${fixture.config.join("")}`,
  );
}

interface Gateway {
  proc: ReturnType<typeof Bun.spawn>;
  url: string;
  token: string;
}

async function startGateway(binary: string, tmp: string, ws: string): Promise<Gateway> {
  const created = Bun.spawnSync([binary, "gateway", "token", "create", "--name", "bench", "-w", ws], { env: env(tmp) });
  if (created.exitCode !== 0) throw new Error(`token create failed: ${created.stderr.toString()}`);
  const token = created.stdout.toString().trim();
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([binary, "gateway", "--port", String(port), "-w", ws], {
    env: { ...env(tmp), ...(process.env.PRX_BENCH_GATEWAY_OPTIONS ? { BUN_OPTIONS: process.env.PRX_BENCH_GATEWAY_OPTIONS } : {}) },
    cwd: tmp,
    stdout: "ignore",
    stderr: Bun.file(join(tmp, `gateway-${Date.now()}.log`)),
  });
  const deadline = performance.now() + 60_000;
  for (;;) {
    const status = await fetch(`${url}/health`).then((r) => r.status, () => 0);
    if (status === 200) break;
    if (performance.now() > deadline || proc.exitCode !== null) throw new Error(`gateway did not become healthy (exit ${proc.exitCode})`);
    await Bun.sleep(5);
  }
  return { proc, url, token };
}

/** 100 plugins start in ~20 s on a quiet machine; several minutes when the machine is overloaded. */
const ACTIVE_WAIT_MS = 300_000;

/** Waits until the gateway lists every installed plugin active (remote ones join when their Worker is ready). */
async function waitActive(gateway: Gateway, count: number): Promise<void> {
  const deadline = performance.now() + ACTIVE_WAIT_MS;
  let last = "";
  while (performance.now() < deadline) {
    const response = await fetch(`${gateway.url}/api/plugins`, { headers: { authorization: `Bearer ${gateway.token}` } });
    const body = (await response.json()) as { plugins: { name: string; status: string; error?: unknown }[] };
    const active = body.plugins.filter((p) => p.status === "active").length;
    last = body.plugins.filter((p) => p.status !== "active").map((p) => `${p.name}: ${p.status} ${JSON.stringify(p.error ?? "")}`).join("; ");
    if (active === count) return;
    await Bun.sleep(100);
  }
  throw new Error(`plugins not all active after ${ACTIVE_WAIT_MS / 1000} s: ${last}`);
}

interface Sample {
  ms: number;
  text: string;
}

let seq = 0;
async function turn(gateway: Gateway): Promise<Sample> {
  const text = `bench plugins turn ${seq++}`;
  const started = performance.now();
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${gateway.token}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "fake-model", messages: [{ role: "user", content: text }] }),
  });
  if (response.status !== 200) throw new Error(`gateway turn: HTTP ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
  return { ms: performance.now() - started, text };
}

interface Measured {
  overheadP50: number;
  overheadP99: number;
  cpuPerTurn: number;
  reloadP50: number;
}

async function measure(gateway: Gateway, fake: StandaloneFake, reloadName: string): Promise<Measured> {
  const pid = gateway.proc.pid;
  for (let i = 0; i < WARMUP_TURNS; i++) await turn(gateway);
  await fake.handled();
  const upstream = (await fake.lastBody()) as { messages: { content: string }[] };
  const direct = async (): Promise<Sample> => {
    const text = `bench plugins direct ${seq++}`;
    upstream.messages.at(-1)!.content = text;
    const started = performance.now();
    const response = await fetch(`${fake.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(upstream) });
    await response.arrayBuffer();
    return { ms: performance.now() - started, text };
  };
  const directSamples: Sample[] = [];
  for (let i = 0; i < 50; i++) directSamples.push(await direct());
  const gatewaySamples: Sample[] = [];
  const cpuBefore = cpuMs(pid);
  for (let i = 0; i < TURNS; i++) gatewaySamples.push(await turn(gateway));
  const cpuPerTurn = (cpuMs(pid) - cpuBefore) / TURNS;
  const handled = await fake.handled();
  const own = (s: Sample) => s.ms - (handled.get(s.text) ?? NaN);
  const floor = stats(directSamples.map(own)).p50;
  const overhead = stats(gatewaySamples.map((s) => own(s) - floor));

  const reloads: number[] = [];
  for (let i = 0; i < RELOADS; i++) {
    const started = performance.now();
    const response = await fetch(`${gateway.url}/api/plugins/${reloadName}/reload`, {
      method: "POST",
      headers: { authorization: `Bearer ${gateway.token}` },
    });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`reload of ${reloadName}: HTTP ${response.status} ${body}`);
    reloads.push(performance.now() - started);
    await Bun.sleep(200);
  }
  return { overheadP50: overhead.p50, overheadP99: overhead.p99, cpuPerTurn, reloadP50: stats(reloads).p50 };
}

const MIX_NOTES: Record<Mix, string> = {
  mixed: "per ten: 4 WASM tools, 2 hooks, 1 middleware (4 calls a turn), 3 remote (a provider each: 1 RPC a turn)",
  "taking no part": "per ten: 5 WASM tools, 2 hooks, 3 remote without a provider: nothing for any plugin to do in a turn",
};

async function measureMix(ctx: BenchContext, built: string, fake: StandaloneFake, mix: Mix): Promise<BenchRow[]> {
  const fixture: Fixture = { ws: join(ctx.tmp, `ws-${mix.replaceAll(" ", "-")}`), installed: new Map(), config: [] };
  const results = new Map<number, Measured>();
  const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
  for (const size of SIZES) {
    grow(fixture, built, size, mix);
    writeConfig(fixture, fake.url);
    const gateway = await startGateway(ctx.binary, ctx.tmp, fixture.ws);
    try {
      await waitActive(gateway, size);
      const m = await measure(gateway, fake, "tool-0");
      console.log(
        `  ${mix}, ${size} plugins: overhead p50 ${m.overheadP50.toFixed(2)} ms p99 ${m.overheadP99.toFixed(2)} ms, ` +
          `CPU ${m.cpuPerTurn.toFixed(2)} ms/turn, reload of one ${m.reloadP50.toFixed(1)} ms`,
      );
      results.set(size, m);
    } finally {
      gateway.proc.kill("SIGTERM");
      await gateway.proc.exited;
    }
  }
  const series = (name: string, unit: BenchRow["unit"], pick: (m: Measured) => number, note: string) =>
    growthRows({
      suite: SUITE,
      name: `${mix}: ${name}`,
      per: "plugins",
      unit,
      sizes: SIZES,
      grow: () => undefined,
      cost: async (size) => Math.max(pick(results.get(size)!), 1e-3),
      note: `${note}; ${MIX_NOTES[mix]}; load average at start ${load}`,
    });
  return [
    ...(await series("turn overhead p50", "ms", (m) => m.overheadP50, `${TURNS} turns at concurrency 1 minus the fake's own time`)),
    ...(await series("turn overhead p99", "ms", (m) => m.overheadP99, `${TURNS} turns`)),
    ...(await series("gateway CPU per turn (all threads)", "ms", (m) => m.cpuPerTurn, `${TURNS} turns`)),
    ...(await series("reload of one plugin (a WASM tool), p50", "ms", (m) => m.reloadP50, `${RELOADS} reloads through POST /api/plugins/:name/reload`)),
  ];
}

/**
 * The runtime's own cost of a reload of one plugin among N (discovery, admission, fingerprints, carry-over, swap and
 * release) with an instant loader, in this process: CPU time per reload, which a loaded machine does not inflate.
 */
async function ownReloadRows(ctx: BenchContext): Promise<BenchRow[]> {
  const instant: PluginLoader = {
    kinds: ["wasm-module"],
    async load(plugin) {
      const spec = { name: plugin.capabilities[0]!.name, description: "d", parametersSchema: "{}" };
      return { plugin, invoke: async () => spec, release: async () => {} };
    },
  };
  const root = join(ctx.tmp, "own");
  mkdirSync(root, { recursive: true });
  const workspace = openWorkspace(root);
  const storage = openSqliteStorage(workspace.dbPath);
  const runtime = getPluginRuntime(
    workspace,
    { storage, events: nullPublisher, memory: () => null, logger: createLogger("bench.plugins") },
    { config: ConfigSchema.parse({}), loaders: [instant] },
  );
  // a 1 MB entry file each, like a kit-built component: hashing it again would show
  const wasm = new Uint8Array(1024 * 1024);
  wasm.set([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  let installed = 0;
  const reloads = ctx.quick ? 10 : 100;
  try {
    return await growthRows({
      suite: SUITE,
      name: "runtime's own CPU time per reload of one plugin (instant loader)",
      per: "plugins",
      unit: "ms",
      sizes: SIZES,
      async grow(size) {
        for (; installed < size; installed++) writePlugin(workspace, `p-${installed}`, manifest({ name: `p-${installed}`, tools: [`t_${installed}`] }), wasm);
        if (runtime.started) await runtime.reload();
        else await runtime.start();
        await runtime.settled();
      },
      async cost() {
        for (let i = 0; i < 5; i++) await runtime.reload("p-0");
        const before = process.cpuUsage();
        for (let i = 0; i < reloads; i++) {
          await runtime.reload("p-0");
          await runtime.settled();
        }
        const used = process.cpuUsage(before);
        return (used.user + used.system) / 1000 / reloads;
      },
      exponentTarget: { op: "<=", value: 0.1 },
      note: `${reloads} named reloads, the others carried over; discovery, admission, fingerprints, swap and release`,
    });
  } finally {
    await runtime.stop();
    storage.close();
  }
}

const suite: BenchSuite = async (ctx) => {
  if (ctx.quick) ({ SIZES, WARMUP_TURNS, TURNS, RELOADS } = QUICK);
  const built = (await ensureExamplesBuilt(env(ctx.tmp))).dir;
  const fake = await startStandaloneFake(FAKE_LATENCY_MS);
  const rows: BenchRow[] = [...(await ownReloadRows(ctx))];
  try {
    for (const mix of MIX_NAMES) rows.push(...(await measureMix(ctx, built, fake, mix)));
  } finally {
    await fake.stop();
  }
  return rows;
};

export default suite;
