import { overCap, REMOTE_MEMORY_AFTER_CALL_GAP_MS, REMOTE_MEMORY_CHECK_MS, REMOTE_MEMORY_IDLE_STALE_MS, REMOTE_MEMORY_STALE_MS } from "../../limits.ts";
import { ProcessRss } from "./process-rss.ts";
import { MemoryTicker } from "./ticker.ts";

export interface MemoryGuardOptions {
  /** `[resources] max_memory_mb`. */
  capMb: number;
  /** Called once, when the plugin is over its cap: kill it. `how` says what was measured. */
  onOver(usedBytes: number, how: string): void;
  checkMs?: number;
  /** The timer its periodic check shares with other plugins' (default: a ticker of its own every checkMs). */
  ticker?: MemoryTicker;
  /** Whether the host has a call in flight to the plugin (a Worker reports often only then). */
  busy?: () => boolean;
  staleMs?: number;
  idleStaleMs?: number;
}

/** Measures one running plugin against its `max_memory_mb`, at least every checkMs (on a shared ticker) and after each call. */
export interface MemoryGuard {
  /** A Worker's own report of its heap (ignored for a subprocess, which is read from /proc). */
  report(heapBytes: number): void;
  /** A call finished: measure again soon (calls finishing in the same tick, or within REMOTE_MEMORY_AFTER_CALL_GAP_MS, share one measurement). */
  afterCall(): void;
  /** The plugin is ready: from now on a Worker that does not report counts as busy (not while it loads). */
  ready(): void;
  /** Bytes last measured, null before the first measurement. */
  readonly usedBytes: number | null;
  stop(): void;
}

abstract class Guard implements MemoryGuard {
  usedBytes: number | null = null;
  private tripped = false;
  private soon = false;
  private lastAfterCall = -Infinity;
  private readonly untick: () => void;

  constructor(protected readonly options: MemoryGuardOptions) {
    this.untick = (options.ticker ?? new MemoryTicker(options.checkMs ?? REMOTE_MEMORY_CHECK_MS)).add(() => this.check());
  }

  abstract report(heapBytes: number): void;
  protected abstract check(): void;

  ready(): void {
    // only a Worker's silence means something, and only once it serves
  }

  afterCall(): void {
    if (this.soon || this.tripped) return;
    // calls finishing within a gap share one measurement (a call that allocates past the cap takes longer than that)
    const now = performance.now();
    if (now - this.lastAfterCall < REMOTE_MEMORY_AFTER_CALL_GAP_MS) return;
    this.lastAfterCall = now;
    this.soon = true;
    // after the results being handled now (one chunk may carry many): one measurement for all of them
    queueMicrotask(() => {
      this.soon = false;
      this.check();
    });
  }

  protected measured(bytes: number, how: string): void {
    this.usedBytes = bytes;
    if (this.tripped || !overCap(bytes, this.options.capMb)) return;
    this.tripped = true;
    this.stop();
    this.options.onOver(bytes, how);
  }

  stop(): void {
    this.untick();
  }
}

/** A subprocess: its resident set, read from /proc/<pid>/statm. */
class ProcessGuard extends Guard {
  private readonly rss: ProcessRss;

  constructor(pid: number, options: MemoryGuardOptions) {
    super(options);
    this.rss = new ProcessRss(pid);
  }

  report(): void {
    // a subprocess is measured from outside; what it says about itself is not needed
  }

  protected check(): void {
    const bytes = this.rss.read();
    if (bytes !== null) this.measured(bytes, "resident memory of the subprocess");
  }

  override stop(): void {
    super.stop();
    this.rss.close();
  }
}

/**
 * A Worker shares the process, so it reports its own JS heap (which counts ArrayBuffers and strings): every checkMs
 * while it serves a call, every REMOTE_MEMORY_IDLE_REPORT_MS while it has none. Once it serves, while its reports
 * are older than staleMs (a call in flight: measured from the call's start at the latest) or idleStaleMs (none) it is
 * busy in synchronous code, and the process's RSS growth since its last report is counted as its own. (Not while it
 * loads: plugins starting side by side grow the process together, and the ready timeout bounds a start.)
 */
class WorkerGuard extends Guard {
  private serving = false;
  private lastReportAt = performance.now();
  private lastHeap = 0;
  private busySince: number | null = null;
  private rssAtReport: number;

  constructor(
    options: MemoryGuardOptions,
    private readonly processRss: () => number,
  ) {
    super(options);
    this.rssAtReport = processRss();
  }

  /** The Worker checks itself after each call (and reports when over); a call cannot finish while it is silent. */
  override afterCall(): void {}

  report(heapBytes: number): void {
    this.lastReportAt = performance.now();
    this.lastHeap = heapBytes;
    this.rssAtReport = this.processRss();
    this.measured(heapBytes, "JS heap reported by the Worker");
  }

  override ready(): void {
    this.serving = true;
  }

  protected check(): void {
    if (!this.serving) return;
    const now = performance.now();
    const busy = this.options.busy?.() ?? true;
    // a call's start wakes an idle Worker's reports: its silence counts from then
    if (busy && this.busySince === null) this.busySince = now;
    if (!busy) this.busySince = null;
    const silentMs = now - Math.max(this.lastReportAt, this.busySince ?? 0);
    const staleMs = busy
      ? (this.options.staleMs ?? REMOTE_MEMORY_STALE_MS)
      : (this.options.idleStaleMs ?? REMOTE_MEMORY_IDLE_STALE_MS);
    if (silentMs <= staleMs) return;
    const growth = Math.max(0, this.processRss() - this.rssAtReport);
    const how = `process RSS growth while the Worker did not report for ${Math.round(silentMs)} ms`;
    this.measured(this.lastHeap + growth, how);
  }
}

export function processMemoryGuard(pid: number, options: MemoryGuardOptions): MemoryGuard {
  return new ProcessGuard(pid, options);
}

export function workerMemoryGuard(
  options: MemoryGuardOptions,
  processRss: () => number = () => process.memoryUsage.rss(),
): MemoryGuard {
  return new WorkerGuard(options, processRss);
}
