/**
 * One measured quantity. `target` is the goal, when there is one: in the row's unit, or (`ratio: true`) as a ratio
 * to `floor`, the same quantity of a bare program (a compiled hello, a bare echo) measured beside it in the same run.
 */
export interface BenchRow {
  suite: string;
  name: string;
  value: number;
  unit: "ms" | "us" | "MB" | "ops/s" | "req/s" | "count" | "%" | "exponent";
  target?: { op: "<=" | ">="; value: number; ratio?: true };
  /** The floor measured in the same run, in the row's unit, and the ratio value/floor (median of paired ratios). */
  floor?: { name: string; value: number; ratio: number };
  note?: string;
}

export interface BenchContext {
  /** Absolute path of the repository root. */
  root: string;
  /** Path of the compiled binary (built by the harness before suites run if missing). */
  binary: string;
  /** A fresh temporary directory for this suite. */
  tmp: string;
  /**
   * `bun run bench --quick`: a short pass (fewer sizes, rounds, pairs) that shows the suite still runs; its numbers
   * are not compared with targets. A suite that cannot shorten itself runs as usual.
   */
  quick?: boolean;
}

export type BenchSuite = (ctx: BenchContext) => Promise<BenchRow[]>;

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function stats(samples: number[]): { p50: number; p99: number; mean: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean };
}
