import { queryTerms } from "./fts-query.ts";
import {
  MEMORY_COMMON_TERM_MIN_ENTRIES,
  MEMORY_COMMON_TERM_SHARE,
  MEMORY_RANK_TERM_MAX_DOCS,
  MEMORY_RECALL_MIN_SCORE,
  MEMORY_RECALL_RELATIVE_CUTOFF,
  MEMORY_SCORE_EPSILON,
} from "./limits.ts";
import { isContentTerm } from "./stopwords.ts";
import type { WeightedTerm } from "../storage/types.ts";

/**
 * How recall decides what is relevant, independent of storage: a query's content terms (stop words and one-letter
 * tokens dropped) are weighted by rarity; an entry's score is the share of that weight it matches (0..1); weak
 * hits are cut by an absolute and a relative threshold.
 */

/** The terms of free text that can match a memory; empty when the text is only stop words or punctuation. */
export function contentTerms(text: string): string[] {
  return queryTerms(text, isContentTerm);
}

/** True when `text` has something recall could match (the agent skips auto-recall otherwise). */
export function hasContentTerms(text: string): boolean {
  return contentTerms(text).length > 0;
}

/**
 * A term's weight: BM25's inverse document frequency in its always-positive form. A term no entry holds weighs
 * like one held by a single entry: the query asks about something the store does not know.
 */
export function termWeight(docs: number, entries: number): number {
  const d = Math.max(1, docs);
  const n = Math.max(entries, d);
  return Math.log(1 + (n - d + 0.5) / (d + 0.5));
}

/** Too common to match on its own (see MEMORY_COMMON_TERM_SHARE and MEMORY_RANK_TERM_MAX_DOCS). */
export function isCommonTerm(docs: number, entries: number): boolean {
  if (docs > MEMORY_RANK_TERM_MAX_DOCS) return true;
  return entries >= MEMORY_COMMON_TERM_MIN_ENTRIES && docs > entries * MEMORY_COMMON_TERM_SHARE;
}

export interface QueryPlan {
  /** Terms some entry holds and that are rare enough to match: the only ones searched. */
  matching: WeightedTerm[];
  /** Sum of the weights of every content term that is not too common (terms no entry holds included). */
  total: number;
}

/** Weigh a query's content terms given how many entries hold each (`docs`) among `entries` in all. */
export function planQuery(terms: Array<{ term: string; docs: number }>, entries: number): QueryPlan {
  const matching: WeightedTerm[] = [];
  let total = 0;
  for (const { term, docs } of terms) {
    if (isCommonTerm(docs, entries)) continue;
    const weight = termWeight(docs, entries);
    total += weight;
    if (docs > 0) matching.push({ term, weight });
  }
  return { matching, total };
}

/**
 * The hits worth returning, given hits sorted best first with their raw score (the sum of the weights of the
 * terms they match): score becomes the share of `total`; hits under MEMORY_RECALL_MIN_SCORE, or under
 * MEMORY_RECALL_RELATIVE_CUTOFF of the best, are dropped.
 */
export function keepRelevant<T extends { score: number }>(hits: T[], total: number): T[] {
  if (hits.length === 0 || total <= 0) return [];
  const best = hits[0]!.score / total;
  const floor = Math.max(MEMORY_RECALL_MIN_SCORE, best * MEMORY_RECALL_RELATIVE_CUTOFF) - MEMORY_SCORE_EPSILON;
  const kept: T[] = [];
  for (const hit of hits) {
    const share = Math.min(1, hit.score / total);
    if (share < floor) break;
    kept.push({ ...hit, score: share });
  }
  return kept;
}
