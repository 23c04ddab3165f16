import { MEMORY_RECALL_MIN_SCORE, MEMORY_RECALL_RELATIVE_CUTOFF, MEMORY_SCORE_EPSILON } from "./limits.ts";
import type { QueryPlan } from "./relevance.ts";

/**
 * Recall without ranking every entry that shares a word with the query: each term's entries (read once from the
 * full-text index, capped at MEMORY_RANK_TERM_MAX_DOCS + 1, the read that also counts them) give every entry's raw
 * score, the sum of the weights of the terms it holds. Entries with one score form a group; the backend ranks
 * (BM25, ts_rank) only the groups that can reach the answer, best first.
 */

/** Entries sharing one raw score. */
export interface ScoreGroup {
  score: number;
  seqs: number[];
}

/**
 * Every entry holding a matching term, grouped by raw score, best first; groups under MEMORY_RECALL_MIN_SCORE of the
 * query are left out, as relevance.ts would drop them. `holders` maps each term to the entries holding it.
 */
export function scoreGroups(plan: QueryPlan, holders: ReadonlyMap<string, readonly number[]>): ScoreGroup[] {
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
 * Whether `group` can still add to `found` (best first): not once `limit` entries are found, nor when it scores under
 * MEMORY_RECALL_RELATIVE_CUTOFF of the best found (relevance.ts would drop it).
 */
export function groupReaches(group: ScoreGroup, found: ReadonlyArray<{ score: number }>, limit: number): boolean {
  if (found.length >= limit) return false;
  return found.length === 0 || group.score >= found[0]!.score * MEMORY_RECALL_RELATIVE_CUTOFF - MEMORY_SCORE_EPSILON;
}
