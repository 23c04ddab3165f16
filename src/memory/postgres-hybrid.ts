import type { SQL } from "bun";
import { MEMORY_RRF_K } from "./limits.ts";
import type { QueryVector } from "./postgres-embeddings.ts";
import { PG_MEMORY_COLUMNS, visibleTo, type PgRankedOptions } from "./postgres-recall.ts";
import type { MemoryRow } from "../storage/types.ts";

/**
 * The entries nearest the query vector by cosine distance (`<=>`), nearest first, with the same session and privacy
 * filters as full-text recall; only vectors of the query's model and dimension, computed for the entry's current
 * text, and at least `minSimilarity` similar. The `dims = N` predicate and the `::vector(N)`
 * expression match the partial HNSW index of that dimension.
 */
export async function nearestPg(sql: SQL, query: QueryVector, options: PgRankedOptions, minSimilarity: number): Promise<MemoryRow[]> {
  // an integer >= 1: the embeddings' schema checked it
  const dims = query.dims;
  const params: unknown[] = [query.literal, query.model, 1 - minSimilarity];
  const param = (value: unknown) => (params.push(value), `$${params.length}`);
  const where = [`e.dims = ${dims}`, "e.model = $2", "e.revision = m.updated_at", ...visibleTo(options, param)];
  params.push(options.limit);
  const distance = `(e.embedding::vector(${dims}) <=> $1::vector(${dims}))`;
  const rows = (await sql.unsafe(
    `SELECT * FROM (SELECT ${PG_MEMORY_COLUMNS}, ${distance} AS distance FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id
     WHERE ${where.join(" AND ")} ORDER BY ${distance} LIMIT $${params.length}) near WHERE near.distance <= $3 ORDER BY near.distance`,
    params,
  )) as Array<MemoryRow & { distance: number }>;
  return rows.map(({ distance, ...row }) => ({ ...row, score: 1 - distance }));
}

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
