/**
 * Preloaded into a process under measurement (`BUN_OPTIONS="--preload <this file>"`, which the compiled binary honours
 * too) with PRX_BENCH_HEAP_PROBE naming a file: each SIGUSR2 runs a full collection and appends one JSON line with
 * what the JavaScript heap still holds. A process that keeps something per message shows it here as a slope; its RSS
 * also moves with the allocator's high-water mark (how far the last burst queued up), which this does not.
 */
import { heapStats } from "bun:jsc";
import { appendFileSync } from "node:fs";

export interface HeapProbeLine {
  /** Bytes of live JavaScript heap after the full collection. */
  heapSize: number;
  objectCount: number;
  /** The process's RSS after the collection (bytes). */
  rss: number;
  objectTypeCounts: Record<string, number>;
}

export const HEAP_PROBE_ENV = "PRX_BENCH_HEAP_PROBE";

const out = process.env[HEAP_PROBE_ENV];
if (out) {
  process.on("SIGUSR2", () => {
    Bun.gc(true);
    const stats = heapStats();
    const line: HeapProbeLine = {
      heapSize: stats.heapSize,
      objectCount: stats.objectCount,
      rss: process.memoryUsage().rss,
      objectTypeCounts: stats.objectTypeCounts,
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
