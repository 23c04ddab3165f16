import { REMOTE_MEMORY_CHECK_MS } from "../limits.ts";
import { overCap } from "../memory-guard.ts";

export interface MemoryReports {
  /** A call finished: measure (once per tick) and report at once if the heap is over the cap. */
  afterCall(): void;
  stop(): void;
}

/**
 * In a Worker: report this thread's JS heap to the host every `everyMs` (`process.memoryUsage().heapUsed` of a Worker
 * is its own VM's heap, ArrayBuffers and strings included; ~7 us) and right after a call that left it over `capMb`.
 * The host enforces the cap; a Worker that stops reporting (busy in synchronous code) is measured by the host instead.
 */
export function startMemoryReports(
  send: (message: { type: "memory"; heapBytes: number }) => void,
  capMb: number | undefined,
  everyMs = REMOTE_MEMORY_CHECK_MS,
): MemoryReports {
  // taken before the plugin is imported, so replacing process.memoryUsage does not change what is reported
  const usage = process.memoryUsage.bind(process);
  const report = (heapBytes = usage().heapUsed) => send({ type: "memory", heapBytes });
  const timer = setInterval(() => report(), everyMs);
  let queued = false;
  report();
  return {
    afterCall() {
      if (queued || capMb === undefined) return;
      queued = true;
      setImmediate(() => {
        queued = false;
        const heap = usage().heapUsed;
        if (overCap(heap, capMb)) report(heap);
      });
    },
    stop: () => clearInterval(timer),
  };
}
