/**
 * What installed remote plugins cost a host while nothing calls them: resident memory of the host and its plugin
 * subprocesses, threads, and CPU time over an idle window, read from /proc (load-independent).
 */
import { readdirSync, readFileSync } from "node:fs";

const CLOCK_TICKS = 100;

function statFields(pid: number | "self"): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "latin1");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** utime + stime of a process (all its threads) in ms; 0 once it is gone. */
export function cpuMs(pid: number | "self"): number {
  const f = statFields(pid);
  // fields after the comm: state is index 0, utime 11, stime 12
  return f ? ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS : 0;
}

function statusField(pid: number | "self", field: string): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "latin1"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Direct children of this process (plugin subprocesses). */
export function childPids(): number[] {
  const self = process.pid;
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const f = statFields(Number(name));
    if (f && Number(f[1]) === self) out.push(Number(name));
  }
  return out;
}

export interface IdleCost {
  rssMb: number;
  threads: number;
  children: number;
  /** CPU of this process and its children over the window, as % of one core. */
  cpuPercent: number;
}

/** Measure over `windowMs` of idleness (the caller awaits nothing else meanwhile). */
export async function idleCost(windowMs: number): Promise<IdleCost> {
  const kids = childPids();
  const cpu = () => cpuMs("self") + kids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const c0 = cpu();
  const t0 = performance.now();
  await Bun.sleep(windowMs);
  const used = cpu() - c0;
  const elapsed = performance.now() - t0;
  const rssKb = statusField("self", "VmRSS") + kids.reduce((sum, pid) => sum + statusField(pid, "VmRSS"), 0);
  const threads = statusField("self", "Threads") + kids.reduce((sum, pid) => sum + statusField(pid, "Threads"), 0);
  return { rssMb: rssKb / 1024, threads, children: kids.length, cpuPercent: (used / elapsed) * 100 };
}
