/**
 * How a cost grows with size: measure it at several sizes, print size -> cost as each is measured, and fit the
 * growth exponent k of cost ~ c * size^k (the least-squares slope of log cost against log size). k ~ 0: independent
 * of size; 1: linear. Used by the growth suite; any suite can measure a series with it.
 */
import type { BenchRow } from "./types.ts";

export interface GrowthPoint {
  size: number;
  cost: number;
}

export interface GrowthSeries {
  suite: string;
  /** What is measured, e.g. "GET /api/sessions (500 sessions), time per request, p50". */
  name: string;
  /** What a size counts, e.g. "messages per session". */
  per: string;
  unit: BenchRow["unit"];
  /** Increasing sizes. */
  sizes: readonly number[];
  /** Brings the fixture to `size`; called with each size in turn, so it may add to what the previous call built. */
  grow(size: number): unknown;
  /** The cost at the current size, in `unit`. */
  cost(size: number): Promise<number>;
  /** A target for the cost at one of the sizes. */
  target?: { size: number; op: "<=" | ">="; value: number };
  /** A target for the exponent, e.g. <= 0.1 for "independent of size". */
  exponentTarget?: { op: "<=" | ">="; value: number };
  note?: string;
}

/** The least-squares slope of log(cost) against log(size): k for cost = c * size^k. Needs two distinct sizes. */
export function growthExponent(points: readonly GrowthPoint[]): number {
  const sizes = new Set(points.map((p) => p.size));
  if (sizes.size < 2) throw new Error(`a growth exponent needs at least two distinct sizes, got ${[...sizes].join(", ")}`);
  const bad = points.find((p) => !(p.size > 0 && p.cost > 0));
  if (bad) throw new Error(`a growth exponent needs positive sizes and costs, got ${bad.size} -> ${bad.cost}`);
  const xs = points.map((p) => Math.log(p.size));
  const ys = points.map((p) => Math.log(p.cost));
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const mx = mean(xs);
  const my = mean(ys);
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return num / den;
}

/** 1000 -> "1k", 100000 -> "100k", 1000000 -> "1M". */
export function sizeLabel(n: number): string {
  if (n >= 1e6 && n % 1e6 === 0) return `${n / 1e6}M`;
  if (n >= 1e3 && n % 1e3 === 0) return `${n / 1e3}k`;
  return n.toLocaleString("en-US");
}

/** One row per size (`name @size per`) and one for the fitted exponent over all sizes. */
export async function growthRows(series: GrowthSeries): Promise<BenchRow[]> {
  const points: GrowthPoint[] = [];
  const rows: BenchRow[] = [];
  for (const size of series.sizes) {
    const started = performance.now();
    await series.grow(size);
    const built = (performance.now() - started) / 1000;
    const cost = await series.cost(size);
    points.push({ size, cost });
    console.log(`  ${series.name}: ${sizeLabel(size)} ${series.per} -> ${cost.toPrecision(3)} ${series.unit} (built in ${built.toFixed(1)} s)`);
    rows.push({
      suite: series.suite,
      name: `${series.name} @${sizeLabel(size)} ${series.per}`,
      value: cost,
      unit: series.unit,
      ...(series.target?.size === size ? { target: { op: series.target.op, value: series.target.value } } : {}),
      ...(series.note ? { note: series.note } : {}),
    });
  }
  if (new Set(points.map((p) => p.size)).size < 2) return rows;
  const k = growthExponent(points);
  console.log(`  ${series.name}: growth exponent ${k.toFixed(2)}`);
  rows.push({
    suite: series.suite,
    name: `${series.name}, growth exponent over ${points.map((p) => sizeLabel(p.size)).join(" -> ")} ${series.per}`,
    value: k,
    unit: "exponent",
    ...(series.exponentTarget ? { target: series.exponentTarget } : {}),
    note: "k of cost ~ size^k (log-log slope): 0 independent of size, 1 linear",
  });
  return rows;
}
