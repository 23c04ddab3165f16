import { readdirSync, readFileSync } from "node:fs";

/**
 * This process's threads as Linux reports them (/proc/self/task): how many there are, and the CPU time each used.
 * Ticks are USER_HZ (100 per second on Linux): utime + stime of /proc/self/task/<tid>/stat.
 */

/**
 * JavaScriptCore's own helper threads, started lazily (the first concurrent collection starts the collector, more
 * JIT work more compiler threads) and bounded in number whatever plugins do; Linux keeps the last 15 characters of
 * their names ("JSC Heap Collector Thread", "Heap Helper Thread").
 */
const RUNTIME_HELPERS = new Set(["ollector Thread", "t Helper Thread", "HeapHelper", "JITWorker"]);

/** Threads of this process, JavaScriptCore's lazily started helpers aside. */
export function threadCount(): number {
  return threadNames().filter((name) => !RUNTIME_HELPERS.has(name)).length;
}

/** CPU ticks used so far, by thread id (a thread that exits between listing and reading is skipped). */
export function threadTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // the thread ended meanwhile
      throw error;
    }
    // fields after "pid (comm) ": state is field 3, utime and stime are fields 14 and 15
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks.set(tid, Number(fields[11]) + Number(fields[12]));
  }
  return ticks;
}

/** The busiest thread over `windowMs` (ticks it used in the window), and the whole process's ticks in it. */
export async function busiestThread(windowMs: number): Promise<{ ticks: number; total: number }> {
  const before = threadTicks();
  await Bun.sleep(windowMs);
  const after = threadTicks();
  let ticks = 0;
  let total = 0;
  for (const [tid, now] of after) {
    const used = now - (before.get(tid) ?? 0);
    total += used;
    ticks = Math.max(ticks, used);
  }
  return { ticks, total };
}

/** The name (comm) of every thread of this process (a thread that ends meanwhile is skipped). */
export function threadNames(): string[] {
  const names: string[] = [];
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      names.push(readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error; // the thread ended meanwhile
    }
  }
  return names;
}
