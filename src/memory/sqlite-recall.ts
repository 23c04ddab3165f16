import type { MemoryKeyScope, MemoryRow, MemoryStore } from "../storage/types.ts";
import { MEMORY_RANK_TERM_MAX_DOCS } from "./limits.ts";
import { keepRelevant, planQuery, type QueryPlan } from "./relevance.ts";
import { groupReaches, scoreGroups } from "./score-groups.ts";

/** A plan and, for each term, the entries holding it (read once: counted for the plan, then scored). */
export interface SqlitePlan {
  plan: QueryPlan;
  holders: Map<string, number[]>;
}

/** Weigh `terms` against the store's `entries` (a term's count past MEMORY_RANK_TERM_MAX_DOCS is moot). */
export function planFor(tables: MemoryStore, terms: string[], entries: number): SqlitePlan {
  const holders = new Map<string, number[]>();
  for (const term of terms) holders.set(term, tables.termEntries(term, MEMORY_RANK_TERM_MAX_DOCS + 1));
  return { plan: planQuery(terms.map((term) => ({ term, docs: holders.get(term)!.length })), entries), holders };
}

export interface RankedOptions {
  limit: number;
  sessionId?: string | null;
  includePrivate: boolean;
  keys?: MemoryKeyScope;
}

/**
 * The relevant entries for a plan, best first, with their score as a share of the query (see relevance.ts): by raw
 * score, then BM25, computed only for the score groups that reach the answer (score-groups.ts).
 */
export function rankedRecall(tables: MemoryStore, { plan, holders }: SqlitePlan, options: RankedOptions): MemoryRow[] {
  if (plan.matching.length === 0) return [];
  const terms = plan.matching.map(({ term }) => term);
  const hits: Array<MemoryRow & { score: number }> = [];
  for (const group of scoreGroups(plan, holders)) {
    if (!groupReaches(group, hits, options.limit)) break;
    for (const row of tables.bestOf(group.seqs, terms, { ...options, limit: options.limit - hits.length })) {
      hits.push({ ...row, score: group.score });
    }
  }
  return keepRelevant(hits, plan.total);
}
