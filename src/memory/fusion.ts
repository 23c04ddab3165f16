import type { MemoryRow } from "../storage/types.ts";
import { MEMORY_RRF_K, MEMORY_SCORE_EPSILON } from "./limits.ts";

/**
 * Reciprocal rank fusion: an entry scores the sum over the rankings holding it of 1 / (MEMORY_RRF_K + rank), rank
 * from 1; ties keep the full-text order first. Reported scores are divided by the best possible (first in both), so
 * they stay in (0, 1].
 */
export function fuseRrf(fullText: MemoryRow[], vector: MemoryRow[], limit: number): MemoryRow[] {
  const fused = new Map<string, { row: MemoryRow; score: number; order: number }>();
  let order = 0;
  for (const ranking of [fullText, vector]) {
    ranking.forEach((row, i) => {
      const share = 1 / (MEMORY_RRF_K + i + 1);
      const seen = fused.get(row.id);
      if (seen) seen.score += share;
      else fused.set(row.id, { row, score: share, order: order++ });
    });
  }
  const best = 2 / (MEMORY_RRF_K + 1);
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, limit)
    .map(({ row, score }) => ({ ...row, score: score / best }));
}

/**
 * The vector hits worth fusing, given hits nearest first with their similarity as `score`: those within
 * `relative` of the best one (the vector side's counterpart of full-text search's MEMORY_RECALL_RELATIVE_CUTOFF), so
 * an entry that shares only a loose theme with the question does not ride along with the one that answers it.
 */
export function keepNear<T extends { score?: number }>(hits: T[], relative: number): T[] {
  const best = hits[0]?.score ?? 0;
  return hits.filter((hit) => (hit.score ?? 0) >= best * relative - MEMORY_SCORE_EPSILON);
}
