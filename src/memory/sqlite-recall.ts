import type { MemoryRow, MemoryStore } from "../storage/types.ts";
import { MEMORY_RANK_TERM_MAX_DOCS, MEMORY_RECALL_MIN_SCORE, MEMORY_RECALL_RELATIVE_CUTOFF, MEMORY_SCORE_EPSILON } from "./limits.ts";
import { keepRelevant, planQuery, type QueryPlan } from "./relevance.ts";

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
}

/** Entries sharing one raw score (the sum of the weights of the terms they hold). */
interface ScoreGroup {
  score: number;
  seqs: number[];
}

/**
 * Every entry holding a matching term, scored from the terms' entry lists alone (no row read), grouped by score,
 * best first; groups under MEMORY_RECALL_MIN_SCORE of the query are left out, as relevance.ts would drop them.
 */
function scoreGroups({ plan, holders }: SqlitePlan): ScoreGroup[] {
  const scores = new Map<number, number>();
  for (const { term, weight } of plan.matching) {
    for (const seq of holders.get(term) ?? []) scores.set(seq, (scores.get(seq) ?? 0) + weight);
  }
  const floor = MEMORY_RECALL_MIN_SCORE * plan.total - MEMORY_SCORE_EPSILON;
  const groups = new Map<number, number[]>();
  for (const [seq, score] of scores) {
    if (score < floor) continue;
    const group = groups.get(score);
    if (group) group.push(seq);
    else groups.set(score, [seq]);
  }
  return [...groups].map(([score, seqs]) => ({ score, seqs })).sort((a, b) => b.score - a.score);
}

/**
 * The relevant entries for a plan, best first, with their score as a share of the query (see relevance.ts): by raw
 * score, then BM25. BM25 is computed only for the score groups that can reach the answer, best group first, until
 * `limit` visible entries are found or the next group falls under MEMORY_RECALL_RELATIVE_CUTOFF of the best, so its
 * cost follows the entries in those groups, not every entry that shares a word with the query.
 */
export function rankedRecall(tables: MemoryStore, planned: SqlitePlan, options: RankedOptions): MemoryRow[] {
  const { plan } = planned;
  if (plan.matching.length === 0) return [];
  const terms = plan.matching.map(({ term }) => term);
  const hits: Array<MemoryRow & { score: number }> = [];
  for (const group of scoreGroups(planned)) {
    if (hits.length >= options.limit) break;
    if (hits.length > 0 && group.score < hits[0]!.score * MEMORY_RECALL_RELATIVE_CUTOFF - MEMORY_SCORE_EPSILON) break;
    const rows = tables.bestOf(group.seqs, terms, { ...options, limit: options.limit - hits.length });
    for (const row of rows) hits.push({ ...row, score: group.score });
  }
  return keepRelevant(hits, plan.total);
}
