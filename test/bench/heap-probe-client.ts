import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { HEAP_PROBE_ENV, type HeapProbeLine } from "./heap-probe.ts";

/** The environment that loads heap-probe.ts into a child (a compiled prx too), answering into `file`; `bunOptions` are kept (profiling). */
export function heapProbeEnv(file: string, bunOptions?: string): Record<string, string> {
  const preload = `--preload ${resolve(import.meta.dir, "heap-probe.ts")}`;
  // first: Bun does not load a --preload that follows --cpu-prof
  return { BUN_OPTIONS: bunOptions ? `${preload} ${bunOptions}` : preload, [HEAP_PROBE_ENV]: file };
}

function lines(file: string): HeapProbeLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as HeapProbeLine);
}

/** Ask the child for its heap after a full collection; null when it did not answer within `timeoutMs`. */
export async function probeHeap(pid: number, file: string, timeoutMs = 10_000): Promise<HeapProbeLine | null> {
  const before = lines(file).length;
  process.kill(pid, "SIGUSR2");
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    const now = lines(file);
    if (now.length > before) return now[now.length - 1]!;
    await Bun.sleep(20);
  }
  return null;
}
