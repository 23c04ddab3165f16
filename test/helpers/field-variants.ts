/**
 * Every variant of `base` with one field (at each of `paths`) replaced by each of `probes`, plus the field removed:
 * a corpus for checking that a hand-written check accepts only what its schema accepts.
 */
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
