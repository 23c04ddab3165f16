import type { MemoryRow, MemoryStore } from "../storage/types.ts";
import { MEMORY_RANK_TERM_MAX_DOCS } from "./limits.ts";
import { keepRelevant, planQuery, type QueryPlan } from "./relevance.ts";

/** Weigh `terms` against the store's `entries` (a term's count past MEMORY_RANK_TERM_MAX_DOCS is moot). */
export function planFor(tables: MemoryStore, terms: string[], entries: number): QueryPlan {
  return planQuery(
    terms.map((term) => ({ term, docs: tables.termDocs(term, MEMORY_RANK_TERM_MAX_DOCS + 1) })),
    entries,
  );
}

export interface RankedOptions {
  limit: number;
  sessionId?: string | null;
  includePrivate: boolean;
}

/** The relevant entries for a plan, best first, with their score as a share of the query (see relevance.ts). */
export function rankedRecall(tables: MemoryStore, plan: QueryPlan, options: RankedOptions): MemoryRow[] {
  if (plan.matching.length === 0) return [];
  return keepRelevant(tables.ranked(plan.matching, options), plan.total);
}
