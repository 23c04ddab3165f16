/**
 * The built gateway with N installed remote plugins (copies of plugins/example-remote, half Workers, half
 * subprocesses): its RSS, threads and idle CPU with its plugin subprocesses (/proc), on a first start (no cached
 * descriptor: every plugin starts) and on a second (descriptors cached: none starts), and the first request to a
 * route of a plugin that is not running.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cpuMs } from "./idle-cost.ts";
import type { BenchRow } from "./types.ts";

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) out.push(Number(name));
    } catch {
      // the process ended while the list was read
    }
  }
  return out;
}

function statusField(pid: number, field: string): number {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "latin1"))?.[1] ?? 0);
  } catch {
    // the process ended
    return 0;
  }
}

/** A workspace with `n` uniquely named copies of example-remote (their tools and events renamed, so none clash). */
function workspaceWith(root: string, tmp: string, n: number): string {
  const ws = mkdtempSync(join(tmp, "remote-gateway-"));
  mkdirSync(join(ws, "plugins"));
  for (let i = 0; i < n; i++) {
    const dir = join(ws, "plugins", `ex${i}`);
    cpSync(join(root, "plugins/example-remote"), dir, { recursive: true });
    let manifest = readFileSync(join(dir, "plugin.toml"), "utf8")
      .replace('name = "example-remote"', `name = "ex${i}"`)
      .replace("ready_timeout_ms = 5000", "ready_timeout_ms = 60000");
    if (i % 2 === 1) manifest = manifest.replace('transport = "worker"', 'transport = "process"');
    writeFileSync(join(dir, "plugin.toml"), manifest);
    const source = readFileSync(join(dir, "plugin.ts"), "utf8");
    writeFileSync(join(dir, "plugin.ts"), source.replaceAll("REMEMBER_NOTE", `REMEMBER_NOTE_${i}`).replaceAll("NOTE_SAVED", `NOTE_SAVED_${i}`));
  }
  writeFileSync(join(ws, "config.toml"), "");
  return ws;
}

export async function remoteGatewayRows(root: string, binary: string, tmp: string, n: number, windowMs: number): Promise<BenchRow[]> {
  const ws = workspaceWith(root, tmp, n);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ws, PRX_LOG: "error" };
  const token = Bun.spawnSync([binary, "gateway", "token", "create", "-w", ws], { env }).stdout.toString().trim();
  const rows: BenchRow[] = [];
  const row = (name: string, value: number, unit: BenchRow["unit"], note?: string) =>
    rows.push({ suite: "remote", name, value, unit, ...(note ? { note } : {}) });
  try {
    for (const run of ["first start", "second start"] as const) {
      const proc = Bun.spawn([binary, "gateway", "--port", "0", "-w", ws], { env, stdout: "pipe", stderr: "ignore" });
      try {
        const reader = proc.stdout.getReader();
        let text = "";
        while (!/listening on (\S+)/.test(text)) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`the gateway exited before listening (${run})`);
          text += new TextDecoder().decode(value);
        }
        const url = /listening on (\S+)/.exec(text)![1]!.replace(/\/$/, "");
        const headers = { authorization: `Bearer ${token}` };
        const t0 = performance.now();
        let states: string[] = [];
        while (states.length !== n || states.includes("starting")) {
          const body = (await (await fetch(`${url}/api/plugins`, { headers })).json()) as {
            plugins: Array<{ status: string; remote: { state: string } | null }>;
          };
          states = body.plugins.map((p) => p.remote?.state ?? p.status);
          if (states.length !== n || states.includes("starting")) await Bun.sleep(100);
        }
        const loadedMs = performance.now() - t0;
        const expected = run === "first start" ? "ready" : "idle";
        if (states.some((s) => s !== expected)) throw new Error(`${run}: plugins ${states.join(", ")}, expected ${expected}`);
        await Bun.sleep(2000);
        const pids = [proc.pid, ...childrenOf(proc.pid)];
        const c0 = pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
        const w0 = performance.now();
        await Bun.sleep(windowMs);
        const cpu = ((pids.reduce((sum, pid) => sum + cpuMs(pid), 0) - c0) / (performance.now() - w0)) * 100;
        const what = run === "first start" ? "no cached descriptor: every plugin runs" : "descriptors cached: none runs";
        const label = `gateway with ${n} remote plugins (half subprocesses), ${run}`;
        row(`${label}: RSS with its children`, pids.reduce((sum, pid) => sum + statusField(pid, "VmRSS"), 0) / 1024, "MB", what);
        row(`${label}: threads with its children`, pids.reduce((sum, pid) => sum + statusField(pid, "Threads"), 0), "count", `${pids.length} processes`);
        row(`${label}: idle CPU`, cpu, "%", `% of one core over ${windowMs} ms, gateway + children`);
        row(`${label}: plugins listed after`, loadedMs, "ms", "launch's 'listening' -> /api/plugins lists none starting");
        if (run === "second start") {
          const t1 = performance.now();
          const response = await fetch(`${url}/plugins/ex0/notes`, { headers });
          await response.arrayBuffer();
          if (response.status !== 200) throw new Error(`GET /plugins/ex0/notes answered ${response.status}`);
          row("gateway: first request to a route of a plugin not running (start on demand + call)", performance.now() - t1, "ms");
        }
      } finally {
        proc.kill("SIGTERM");
        await proc.exited;
      }
    }
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
  return rows;
}
