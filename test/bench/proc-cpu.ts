/**
 * A process's CPU time between two readings from /proc, to the nanosecond where it can be: every live thread's
 * schedstat, and the threads that ended meanwhile from the process's ticks (summing live threads alone goes
 * backwards when a thread ends between the readings).
 */
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on Linux). */
const USER_HZ = 100;

/** utime + stime in ticks, from a /proc stat line (fields 14 and 15 of proc(5), after the command's parenthesis). */
function ticksOf(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

export interface CpuReading {
  /** The process's ticks, every thread, ended ones included. */
  ticks: number;
  /** Each live thread's run time in nanoseconds (schedstat) and ticks. */
  threads: Map<string, { ns: number; ticks: number }>;
}

export function readCpu(pid: number): CpuReading {
  const threads = new Map<string, { ns: number; ticks: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      threads.set(tid, { ns, ticks: ticksOf(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8")) });
    } catch (error) {
      // the thread ended after the listing: its time is in the process's ticks
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ESRCH") throw error;
    }
  }
  return { ticks: ticksOf(readFileSync(`/proc/${pid}/stat`, "utf8")), threads };
}

/**
 * Nanoseconds of CPU the process used between two readings: the threads alive at the end to the nanosecond
 * (schedstat; one started meanwhile from zero), and the threads that ended meanwhile to the tick (the process's
 * ticks minus the live threads' ticks).
 */
export function cpuBetween(before: CpuReading, after: CpuReading): number {
  let ns = 0;
  let liveTicks = 0;
  for (const [tid, end] of after.threads) {
    const start = before.threads.get(tid);
    ns += end.ns - (start?.ns ?? 0);
    liveTicks += end.ticks - (start?.ticks ?? 0);
  }
  const endedTicks = Math.max(0, after.ticks - before.ticks - liveTicks);
  return ns + (endedTicks * 1e9) / USER_HZ;
}
