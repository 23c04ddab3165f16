/**
 * What a workspace of N installed plugins of every kind costs the built gateway while nothing happens: resident
 * memory of the gateway and its plugin subprocesses, their threads, and idle CPU (clock ticks from /proc over a window,
 * load-independent), at N = 10 / 50 / 100. Per ten plugins: three kit-built WASM tools (notes-tool), a kit-built
 * middleware (pii-redact), a kit-built hook (audit-hook), a kit-built cron job with a hook (daily-digest), two remote
 * plugins in Workers and two in subprocesses (copies of plugins/example-remote). The gateway is started twice per size:
 * the first start runs every remote plugin once to read its descriptor (what a new install costs), the second is
 * what every later start is; idle is measured after the second, once every plugin is listed and the process settled.
 * `bun test/bench/installed-idle.ts [sizes]` runs it alone against dist/prx.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createToken, env, freePort } from "./gateway-process.ts";
import { growthRows } from "./growth.ts";
import { cpuMs } from "./idle-cost.ts";
import { ensureExamplesBuilt } from "../plugins/kit/examples-build.ts";
import type { BenchRow } from "./types.ts";

const MIX = ["tool", "remote-worker", "middleware", "tool", "remote-subprocess", "hook", "tool", "remote-worker", "cron", "remote-subprocess"] as const;
type Kind = (typeof MIX)[number];
const KIT_EXAMPLE: Partial<Record<Kind, string>> = { tool: "notes-tool", middleware: "pii-redact", hook: "audit-hook", cron: "daily-digest" };
const EXAMPLE_REMOTE = resolve(import.meta.dir, "../../plugins/example-remote");
export const INSTALLED_SIZES = { full: [10, 50, 100], quick: [10, 20] } as const;
/** Idle is read over this window, after every plugin is listed and SETTLE_MS more. */
const IDLE_WINDOW_MS = { full: 5000, quick: 2000 };
const SETTLE_MS = 3000;
/** Every plugin listed within this long of "listening" (first start with 40 remote plugins: seconds; loaded machine: more). */
const LISTED_WAIT_MS = 300_000;
export const INSTALLED_RSS_TARGET_MB = 150;
const CLOCK_TICK_MS = 10;

/** Installs plugins until the workspace holds `size` (names carry their number: tool and route names stay unique). */
export function installMix(ws: string, built: string, size: number, config: string[]): void {
  const plugins = join(ws, "plugins");
  mkdirSync(plugins, { recursive: true });
  for (let i = readdirSync(plugins).filter((n) => !n.startsWith(".")).length; i < size; i++) {
    const kind = MIX[i % MIX.length]!;
    const name = `${kind}-${i}`;
    const dir = join(plugins, name);
    const example = KIT_EXAMPLE[kind];
    if (example) {
      mkdirSync(dir);
      cpSync(join(built, example, "plugin.wasm"), join(dir, "plugin.wasm"));
      writeFileSync(join(dir, "plugin.toml"), readFileSync(join(built, example, "plugin.toml"), "utf8").replace(`name = "${example}"`, `name = "${name}"`));
      if (kind === "tool") config.push(`[plugins.${name}.tool_names]\nnotes = "notes_${i}"\n`);
      continue;
    }
    cpSync(EXAMPLE_REMOTE, dir, { recursive: true, filter: (src) => !src.endsWith(".test.ts") && !src.endsWith("README.md") });
    const rename = (file: string, more: (text: string) => string = (t) => t) =>
      writeFileSync(join(dir, file), more(readFileSync(join(dir, file), "utf8").replaceAll("example-remote", name).replaceAll("REMEMBER_NOTE", `REMEMBER_NOTE_${i}`)));
    rename("plugin.toml", (t) => (kind === "remote-subprocess" ? t.replace('transport = "worker"', 'transport = "process"') : t));
    rename("plugin.ts");
  }
}

function writeWorkspaceConfig(ws: string, config: string[]): void {
  writeFileSync(join(ws, "config.toml"), `default_provider = "offline"\nautonomy = { level = "full" }\n[memory]\nbackend = "none"\n${config.join("")}`);
}

interface Proc {
  pid: number;
  rssKb: number;
  threads: number;
}

function procStatus(pid: number): Proc | null {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "latin1");
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? 0);
    return { pid, rssKb: field("VmRSS"), threads: field("Threads") };
  } catch {
    return null;
  }
}

/** The gateway and every process below it (plugin subprocesses). */
function tree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // it ended meanwhile
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parents) if (ppid === out[i]) out.push(pid);
  return out;
}

export interface InstalledIdle {
  rssMb: number;
  threads: number;
  processes: number;
  /** CPU of the gateway and its plugin processes over the window, % of one core. */
  cpuPercent: number;
  ticks: number;
  windowMs: number;
  /** "listening" to every plugin listed, second start. */
  listedMs: number;
  firstStart: { rssMb: number; processes: number; failed: number };
}

async function startGateway(binary: string, ws: string, tmp: string, token: string) {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([binary, "gateway", "--port", String(port), "-w", ws], {
    env: { ...env(tmp), PRX_LOG: "error" },
    stdout: "ignore",
    stderr: Bun.file(join(tmp, `installed-idle-${Date.now()}.log`)),
  });
  const started = performance.now();
  for (;;) {
    if ((await fetch(`${url}/health`).then((r) => r.status, () => 0)) === 200) break;
    if (proc.exitCode !== null || performance.now() - started > 60_000) throw new Error(`gateway did not become healthy (exit ${proc.exitCode})`);
    await Bun.sleep(5);
  }
  const listening = performance.now();
  return { proc, url, token, listening };
}

/**
 * Until every installed plugin is listed active (a remote plugin on demand is listed active, not running). With
 * `settledOnly` (the first start), until none is still starting: a remote plugin whose first run failed (an
 * overloaded machine) is started again by the second start, which must list it active. Returns the failed ones.
 */
async function waitListed(url: string, token: string, count: number, settledOnly = false): Promise<string[]> {
  const deadline = performance.now() + LISTED_WAIT_MS;
  let last = "";
  while (performance.now() < deadline) {
    const response = await fetch(`${url}/api/plugins`, { headers: { authorization: `Bearer ${token}` } });
    if (response.status === 200) {
      const body = (await response.json()) as { plugins: { name: string; status: string; error?: unknown }[] };
      const active = body.plugins.filter((p) => p.status === "active").length;
      last = body.plugins.filter((p) => p.status !== "active").map((p) => `${p.name}: ${p.status} ${JSON.stringify(p.error ?? "")}`).join("; ");
      if (active === count) return [];
      const failed = body.plugins.filter((p) => p.status === "error").map((p) => p.name);
      if (settledOnly && body.plugins.every((p) => p.status === "active" || p.status === "error")) return failed;
      if (!settledOnly && failed.length > 0) throw new Error(`a plugin failed to load: ${last}`);
    }
    await Bun.sleep(100);
  }
  throw new Error(`plugins not all active after ${LISTED_WAIT_MS / 1000} s: ${last}`);
}

async function stop(proc: ReturnType<typeof Bun.spawn>): Promise<void> {
  proc.kill("SIGTERM");
  await proc.exited;
}

/** One size: first start (descriptors read), stop, second start, settle, then RSS, threads and CPU over the window. */
export async function measureInstalled(binary: string, ws: string, tmp: string, count: number, windowMs: number): Promise<InstalledIdle> {
  const token = createToken(binary, ws, tmp);
  const first = await startGateway(binary, ws, tmp, token);
  let firstStart: InstalledIdle["firstStart"];
  try {
    const failed = await waitListed(first.url, token, count, true);
    const procs = tree(first.proc.pid).map(procStatus).filter((p): p is Proc => p !== null);
    firstStart = { rssMb: procs.reduce((s, p) => s + p.rssKb, 0) / 1024, processes: procs.length, failed: failed.length };
  } finally {
    await stop(first.proc);
  }
  const gateway = await startGateway(binary, ws, tmp, token);
  try {
    await waitListed(gateway.url, token, count);
    const listedMs = performance.now() - gateway.listening;
    await Bun.sleep(SETTLE_MS);
    const pids = tree(gateway.proc.pid);
    const cpu = () => pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
    const c0 = cpu();
    const t0 = performance.now();
    await Bun.sleep(windowMs);
    const used = cpu() - c0;
    const elapsed = performance.now() - t0;
    const procs = tree(gateway.proc.pid).map(procStatus).filter((p): p is Proc => p !== null);
    return {
      rssMb: procs.reduce((s, p) => s + p.rssKb, 0) / 1024,
      threads: procs.reduce((s, p) => s + p.threads, 0),
      processes: procs.length,
      cpuPercent: (used / elapsed) * 100,
      ticks: Math.round(used / CLOCK_TICK_MS),
      windowMs: elapsed,
      listedMs,
      firstStart,
    };
  } finally {
    await stop(gateway.proc);
  }
}

/** The growth rows: RSS and idle CPU of the built gateway with N mixed installed plugins. */
export async function installedIdleRows(ctx: { binary: string; tmp: string; quick?: boolean }, suite: string): Promise<BenchRow[]> {
  const mode = ctx.quick ? "quick" : "full";
  const envVars = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", PRX_LOG: "error" };
  const built = (await ensureExamplesBuilt(envVars)).dir;
  const ws = join(ctx.tmp, "installed-idle");
  mkdirSync(ws, { recursive: true });
  const config: string[] = [];
  const measured = new Map<number, InstalledIdle>();
  const measure = async (size: number) => {
    if (!measured.has(size)) measured.set(size, await measureInstalled(ctx.binary, ws, ctx.tmp, size, IDLE_WINDOW_MS[mode]));
    return measured.get(size)!;
  };
  const grow = (size: number) => {
    installMix(ws, built, size, config);
    writeWorkspaceConfig(ws, config);
  };
  const note = (size: number) => {
    const m = measured.get(size)!;
    return (
      `${m.processes} processes, ${m.threads} threads; idle CPU ${m.ticks} ticks in ${(m.windowMs / 1000).toFixed(1)} s; every plugin listed ` +
      `${Math.round(m.listedMs)} ms after listening (second start); first start (remote plugins run once for their descriptors): ` +
      `${m.firstStart.rssMb.toFixed(0)} MB in ${m.firstStart.processes} processes` +
      (m.firstStart.failed > 0 ? ` (${m.firstStart.failed} failed to start then, on an overloaded machine)` : "")
    );
  };
  const sizes = INSTALLED_SIZES[mode];
  const rss = await growthRows({
    suite,
    name: "gateway + plugin processes RSS with N mixed installed plugins, idle (second start)",
    per: "plugins",
    unit: "MB",
    sizes,
    grow,
    cost: async (size) => (await measure(size)).rssMb,
    target: { size: sizes.at(-1)!, op: "<=", value: INSTALLED_RSS_TARGET_MB },
    note: "per ten: 3 WASM tools, a middleware, a hook, a cron job (kit-built), 2 remote Worker and 2 remote subprocess plugins",
  });
  for (const row of rss) {
    const size = Number(/@(\d+)/.exec(row.name)?.[1]);
    if (measured.has(size)) row.note = note(size);
  }
  const cpu = await growthRows({
    suite,
    name: "idle CPU of the gateway + plugin processes with N mixed installed plugins, % of a core",
    per: "plugins",
    unit: "%",
    sizes,
    grow,
    // a clock tick is 10 ms: a window without one reads as one tick, so the exponent stays defined
    cost: async (size) => Math.max((await measure(size)).cpuPercent, (CLOCK_TICK_MS / IDLE_WINDOW_MS[mode]) * 100),
    note: `/proc ticks over ${IDLE_WINDOW_MS[mode] / 1000} s, ${SETTLE_MS / 1000} s after every plugin is listed; a window without a tick reads as one`,
  });
  return [...rss, ...cpu];
}

if (import.meta.main) {
  const root = resolve(import.meta.dir, "../..");
  const tmp = join(process.env.TMPDIR ?? "/tmp", `prx-installed-idle-${process.pid}`);
  mkdirSync(tmp, { recursive: true });
  const sizes = process.argv[2]?.split(",").map(Number);
  const binary = process.env.PRX_BINARY ?? join(root, "dist/prx");
  const envVars = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", PRX_LOG: "error" };
  const built = (await ensureExamplesBuilt(envVars)).dir;
  const ws = join(tmp, "ws");
  const config: string[] = [];
  for (const size of sizes ?? INSTALLED_SIZES.full) {
    installMix(ws, built, size, config);
    writeWorkspaceConfig(ws, config);
    console.log(size, JSON.stringify(await measureInstalled(binary, ws, tmp, size, IDLE_WINDOW_MS.full)));
  }
}
