/**
 * Child process of the wasm suite's "installed WASM plugins" rows: a workspace with N copies of a kit-built (QuickJS)
 * plugin, opened as the gateway opens it (agent host, plugin runtime, every plugin in the first generation), each
 * plugin called once; then the process's RSS, thread count and idle CPU are printed as JSON (WASM_INSTALLED_DIAG=1
 * adds thread names, CPU ticks by thread in the idle window and the largest mappings, on stderr).
 * `bun wasm-installed.ts <plugin dir> <workspace> <N>`; N = 0 is the same host without plugins (the baseline).
 */
import { cpSync, mkdirSync, rmSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openAgentHost } from "../../src/agent/index.ts";
import { createPluginExtensions } from "../../src/agent/plugin-extensions.ts";
import { setLogSink } from "../../src/core/logger.ts";

/** Idle CPU is measured over this window once every plugin has answered and the process settled. */
const IDLE_WINDOW_MS = 2000;
const SETTLE_MS = 500;

function status(): { rssMb: number; threads: number } {
  const text = readFileSync("/proc/self/status", "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(text)![1]);
  return { rssMb: field("VmRSS") / 1024, threads: field("Threads") };
}

/** CPU ticks (USER_HZ) of each thread, by "tid name". */
function threadTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks.set(`${tid} ${stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"))}`, Number(fields[11]) + Number(fields[12]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return ticks;
}

/** CPU ticks used between two threadTicks() readings (a thread that ended meanwhile is left out). */
function ticksBetween(before: Map<string, number>, after: Map<string, number>): number {
  let total = 0;
  for (const [thread, ticks] of after) total += ticks - (before.get(thread) ?? 0);
  return total;
}

const [source, root, count] = process.argv.slice(2);
const n = Number(count);
// a loaded machine can hold a fresh Worker's first QuickJS call past the example's 500 ms: not what is measured here
const plugin = readFileSync(join(source!, "plugin.toml"), "utf8").replace(/^max_execution_time_ms = \d+/m, "max_execution_time_ms = 30000");
const name = /^name = "([^"]+)"/m.exec(plugin)![1]!;
setLogSink(() => {});
// the same workspace for every N: its transpile cache is warm after the first run, as after a gateway restart
rmSync(join(root!, "plugins"), { recursive: true, force: true });
mkdirSync(join(root!, "plugins"), { recursive: true });
writeFileSync(join(root!, "config.toml"), 'default_provider = "offline"\nautonomy = { level = "full" }\n[memory]\nbackend = "none"\n');
for (let i = 1; i <= n; i++) {
  const dir = join(root!, "plugins", `${name}-${i}`);
  cpSync(source!, dir, { recursive: true });
  writeFileSync(join(dir, "plugin.toml"), plugin.replace(`name = "${name}"`, `name = "${name}-${i}"`));
}
const host = await openAgentHost({ workspace: root!, extend: createPluginExtensions({ cron: false, joinAfterMs: Infinity }) });
const generation = host.plugins!.runtime.current();
const capability = /\[\[capabilities\]\]\s*type = "(\w+)"\s*name = "([^"]+)"/.exec(plugin)!;
const ref = { type: capability[1] as "middleware", name: capability[2]! };
const envelope = JSON.stringify({ text: "mail a@b.example", channel: "bench", user_id: null, session_id: "s", metadata: {} });
for (let i = 1; i <= n; i++) {
  const instance = generation.instance(`${name}-${i}`);
  if (!instance) throw new Error(`${name}-${i} is not loaded`);
  await instance.invoke(ref, "process", ["inbound", envelope]);
}
await Bun.sleep(SETTLE_MS);
Bun.gc(true);
const perThread0 = threadTicks();
const t0 = performance.now();
await Bun.sleep(IDLE_WINDOW_MS);
const perThread1 = threadTicks();
const idleCpuPct = (ticksBetween(perThread0, perThread1) * 10 * 100) / (performance.now() - t0);
console.log(JSON.stringify({ n, ...status(), idleCpuPct }));
if (process.env.WASM_INSTALLED_DIAG) {
  const names = new Map<string, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    const comm = readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim();
    names.set(comm, (names.get(comm) ?? 0) + 1);
  }
  console.error(JSON.stringify(Object.fromEntries(names)));
  const busy = [...perThread1].map(([t, v]) => [t, v - (perThread0.get(t) ?? 0)] as const).filter(([, v]) => v > 0);
  console.error("CPU ticks in the idle window, by thread:", JSON.stringify(Object.fromEntries(busy)));
  console.error(readFileSync("/proc/self/smaps_rollup", "utf8"));
  Bun.spawnSync(["sh", "-c", `awk '/^[0-9a-f]/{name=$6} /^Rss:/{rss[name]+=$2} END{for(n in rss) if (rss[n]>2000) print rss[n], n}' /proc/${process.pid}/smaps | sort -rn | head -15`], { stdout: "inherit" });
}
await host.close();
process.exit(0);
