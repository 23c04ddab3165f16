import { availableParallelism } from "node:os";
import { LINGER_MAX_SKIPS } from "./limits.ts";

/** Watches for at most `windowUs` microseconds; true as soon as what it waits for has come. */
export type Watch = (windowUs: number) => boolean;

export interface LingerOptions {
  /** Runs a watch once this turn's work is done (after its microtasks, when what it posted has left). */
  schedule?: (task: () => void) => void;
  /** CPUs this thread may run on: on one, watching would only hold the CPU the other side needs to answer. */
  cpus?: number;
  maxSkips?: number;
}

export interface LingerStats {
  /** Watches that ran, and those that saw their message come within the window. */
  watched: number;
  came: number;
  /** Hand-overs with no watch because earlier watches saw nothing come (backing off). */
  skipped: number;
}

/**
 * The window a side watches for on a process that may run on `cpus` CPUs (its affinity, as
 * `os.availableParallelism()` reports it): `windowUs`, or 0 (no watch) with one CPU. There the other side can post
 * only once the watcher has left the CPU, so a watch cannot see a message come that a return to the event loop would
 * not find queued; a watch the other side did not preempt at once holds the only CPU for the whole window while the
 * other side waits for it.
 */
export function lingerWindowUs(cpus: number, windowUs: number): number {
  return cpus > 1 ? windowUs : 0;
}

/**
 * One side of a hop (a remote plugin's, a WASM sandbox's) watching, after a hand-over, for the other side's next
 * message for a bounded window instead of going to sleep at once (on a VM, waking an idle CPU costs more than the hop
 * itself). At most one watch per event-loop turn. A watch that saw nothing come makes the next 1, 3, 7, ... hand-overs
 * go without one (up to `maxSkips`): a slow other side, or a machine so busy that both sides share one CPU, costs a
 * window only now and then. With a single CPU it never watches.
 */
export class Linger {
  readonly enabled: boolean;
  private readonly schedule: (task: () => void) => void;
  private readonly maxSkips: number;
  private scheduled = false;
  private misses = 0;
  private skips = 0;
  private readonly counts: LingerStats = { watched: 0, came: 0, skipped: 0 };

  constructor(
    readonly windowUs: number,
    options: LingerOptions = {},
  ) {
    this.schedule = options.schedule ?? ((task) => void setImmediate(task));
    this.maxSkips = options.maxSkips ?? LINGER_MAX_SKIPS;
    this.enabled = lingerWindowUs(options.cpus ?? availableParallelism(), windowUs) > 0;
  }

  /**
   * A hand-over happened: watch with `watch` once this turn is done, unless a watch is already due this turn, the
   * side is backing off, or `wanted` (asked then) says the watch is no longer worth it.
   */
  soon(watch: Watch, wanted: () => boolean = () => true): void {
    if (!this.enabled || this.scheduled) return;
    if (this.skips > 0) {
      this.skips--;
      this.counts.skipped++;
      return;
    }
    this.scheduled = true;
    this.schedule(() => {
      this.scheduled = false;
      if (!wanted()) return;
      this.counts.watched++;
      if (watch(this.windowUs)) {
        this.counts.came++;
        this.misses = 0;
        return;
      }
      this.misses = Math.min(this.misses + 1, 30);
      this.skips = Math.min(2 ** this.misses - 1, this.maxSkips);
    });
  }

  stats(): LingerStats {
    return { ...this.counts };
  }
}
