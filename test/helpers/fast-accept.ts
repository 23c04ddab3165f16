import { expect } from "bun:test";
import type { z } from "zod";

/**
 * Corpora for checking a hand-written check that runs in front of a zod schema (a "fast accept"): it must accept
 * only what its schema accepts, and hold what the schema's output holds.
 */

/** Every variant of `base` with one field (at each of `paths`) replaced by each of `probes`, plus the field removed. */
export function fieldVariants(base: unknown, paths: string[][], probes: unknown[]): unknown[] {
  const out: unknown[] = [base];
  for (const path of paths) {
    for (const probe of [...probes, REMOVED]) {
      const copy = structuredClone(base) as Record<string, unknown>;
      let at: Record<string, unknown> = copy;
      for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
      if (probe === REMOVED) delete at[path.at(-1)!];
      else at[path.at(-1)!] = probe;
      out.push(copy);
    }
  }
  return out;
}

const REMOVED = Symbol("removed");

/**
 * Runs `accepts` and `schema` on every value of `corpus`: whatever `accepts` takes, the schema takes too, and `read`
 * (the fields the caller uses; the whole value by default) finds the same in both. How many it took, of how many.
 */
export function fastAcceptAgrees<S extends z.ZodType>(
  schema: S,
  accepts: (v: unknown) => boolean,
  corpus: unknown[],
  read: (v: z.output<S>) => unknown = (v) => v,
): { fast: number; total: number } {
  let fast = 0;
  for (const value of corpus) {
    const parsed = schema.safeParse(value);
    if (!accepts(value)) continue;
    fast++;
    if (!parsed.success) throw new Error(`fast check accepted what the schema refuses: ${JSON.stringify(value)}`);
    expect(read(value as z.output<S>)).toEqual(read(parsed.data));
  }
  return { fast, total: corpus.length };
}
