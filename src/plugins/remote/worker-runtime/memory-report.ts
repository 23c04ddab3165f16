import { heapSize } from "bun:jsc";
import {
  overCap,
  REMOTE_MEMORY_AFTER_CALL_GAP_MS,
  REMOTE_MEMORY_CHECK_MS,
  REMOTE_MEMORY_IDLE_REPORT_MS,
} from "../limits.ts";

export interface MemoryReports {
  /** A call starts: report every `everyMs` while calls run. */
  beforeCall(): void;
  /** A call finished (its answer is on its way): report at once if the heap is over the cap. */
  afterCall(): void;
  stop(): void;
}

/**
 * What a Worker holds, from its own VM's account (`process.memoryUsage()` of a Worker is its VM's, except rss which
 * is the process's): the live heap with ArrayBuffers and strings (heapUsed), or the heap's capacity plus external
 * memory when that is more (a heap of many small objects takes more than its live size). Both are updated by the GC,
 * so they lag an allocation by up to a collection. ~7-14 us (it also reads the process's rss).
 */
export function workerHeapBytes(usage: () => NodeJS.MemoryUsage): number {
  const m = usage();
  return Math.max(m.heapUsed, m.heapTotal + m.external);
}

/**
 * In a Worker: report this thread's memory to the host once at start, every `everyMs` while calls run (the first
 * `everyMs` after a call started on an idle Worker), every `idleMs` while none does, and right after a call that left
 * it over `capMb`. An idle Worker's thread thus wakes
 * rarely: a report reads the process's stat and allocates, which also keeps the thread's GC timer on its fast pace.
 * The check after a call reads only the heap's size (bun:jsc `heapSize()`, 0.5-4 us), at most once per
 * REMOTE_MEMORY_AFTER_CALL_GAP_MS, so it costs the call path next to nothing. The host enforces the cap; a Worker that stops reporting (busy in synchronous
 * code) is measured by the host instead.
 */
export function startMemoryReports(
  send: (message: { type: "memory"; heapBytes: number }) => void,
  capMb: number | undefined,
  everyMs = REMOTE_MEMORY_CHECK_MS,
  idleMs = REMOTE_MEMORY_IDLE_REPORT_MS,
): MemoryReports {
  // taken before the plugin is imported, so replacing process.memoryUsage does not change what is reported
  const usage = process.memoryUsage.bind(process);
  const report = () => send({ type: "memory", heapBytes: workerHeapBytes(usage) });
  let calls = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  /** Whether the armed timer runs at the pace of calls (everyMs) rather than the idle one. */
  let busyPace = false;
  let lastCheck = -Infinity;
  const arm = () => {
    if (timer) clearTimeout(timer);
    busyPace = calls > 0;
    timer = setTimeout(tick, busyPace ? everyMs : idleMs);
  };
  const tick = () => {
    report();
    arm();
  };
  tick();
  return {
    beforeCall() {
      // the host counts a busy Worker's silence from the call's start, so a call only quickens the pace: reporting
      // here would put a heap reading and a message (and the host's reading of the process's RSS) on every call
      if (calls++ === 0 && !busyPace) arm();
    },
    afterCall() {
      calls = Math.max(0, calls - 1);
      if (capMb === undefined) return;
      // calls finishing within a gap share one reading (a call that allocates past the cap takes longer than that)
      const now = performance.now();
      if (now - lastCheck < REMOTE_MEMORY_AFTER_CALL_GAP_MS) return;
      lastCheck = now;
      if (overCap(heapSize(), capMb)) report();
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
