import type { SQL } from "bun";
import type { QueryVector } from "./postgres-embeddings.ts";
import { PG_MEMORY_COLUMNS, visibleTo, type PgRankedOptions } from "./postgres-recall.ts";
import type { MemoryRow } from "../storage/types.ts";

export { fuseRrf } from "./fusion.ts";

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
