import type { SQL } from "bun";
import { MEMORY_EXACT_COUNT_MAX, MEMORY_RANK_TERM_MAX_DOCS } from "./limits.ts";
import { keepRelevant, planQuery, type QueryPlan } from "./relevance.ts";
import type { MemoryRow } from "../storage/types.ts";

/** Columns every entry-returning statement selects, with `m` the memories table. */
export const PG_MEMORY_COLUMNS = "m.id, m.key, m.content, m.category, m.session_id, m.updated_at, m.private::int AS private";

/**
 * ts_rank weights for {D, C, B, A}: key (A) 1.0, content (B) 0.5, category (C) 0.25 — the proportions of the SQLite
 * path's bm25 column weights, used only to break ties between entries matching the same share of the query; the
 * rank is divided by 1 + log(length) (normalization 1), as BM25 favours the shorter of two equal matches.
 */
const RANK_WEIGHTS = "'{0.1, 0.25, 0.5, 1.0}'";
const TSQ = (param: string) => `plainto_tsquery('prx_english', ${param})`;

/**
 * How many entries the store holds, as recall needs it: exact up to MEMORY_EXACT_COUNT_MAX (counting at most that many
 * rows), past it the planner's estimate (pg_class.reltuples scaled to the table's current size, as the planner does).
 * An estimate past twice the limit is taken without counting (a table that shrank that much since its last ANALYZE is
 * re-analyzed by autovacuum). `$1` binds MEMORY_EXACT_COUNT_MAX + 1.
 */
const ENTRIES = `(SELECT CASE WHEN e.n > 2 * $1 THEN e.n ELSE (
    SELECT CASE WHEN c.n < $1 THEN c.n ELSE GREATEST(c.n, e.n) END
    FROM (SELECT count(*)::float8 AS n FROM (SELECT 1 FROM memories LIMIT $1) t) c) END
  FROM (SELECT CASE WHEN relpages > 0 THEN reltuples / relpages * (pg_relation_size(oid) / current_setting('block_size')::float8)
      ELSE reltuples END AS n FROM pg_class WHERE oid = 'memories'::regclass) e)`;

/**
 * The store's size (ENTRIES) and how many entries hold each term (each counted up to MEMORY_RANK_TERM_MAX_DOCS + 1, a
 * bitmap scan of the GIN index), in one round trip.
 */
export async function planForPg(sql: SQL, terms: string[]): Promise<{ entries: number; plan: QueryPlan }> {
  const { text, params } = planStatementPg(terms);
  const row = (await sql.unsafe(text, params))[0] as Record<string, number>;
  const entries = Math.round(row.entries ?? 0);
  return { entries, plan: planQuery(terms.map((term, i) => ({ term, docs: row[`d${i}`] ?? 0 })), entries) };
}

/** The one statement of planForPg (its plans are checked with EXPLAIN in the tests). */
export function planStatementPg(terms: string[]): { text: string; params: unknown[] } {
  const counts = terms.map(
    (_, i) => `(SELECT count(*) FROM (SELECT 1 FROM memories WHERE fts @@ ${TSQ(`$${i + 3}`)} LIMIT $2) t${i})::int AS d${i}`,
  );
  return {
    text: `SELECT ${ENTRIES} AS entries${counts.map((c) => `, ${c}`).join("")}`,
    params: [MEMORY_EXACT_COUNT_MAX + 1, MEMORY_RANK_TERM_MAX_DOCS + 1, ...terms],
  };
}

/**
 * What every recall applies, with `m` the memories table: entries of the session (or of none) when a session is
 * given, and no private entry unless asked. `param` binds a value and returns its placeholder.
 */
export function visibleTo(options: { sessionId?: string | null; includePrivate: boolean }, param: (value: unknown) => string): string[] {
  const where: string[] = [];
  if (options.sessionId) where.push(`(m.session_id = ${param(options.sessionId)} OR m.session_id IS NULL)`);
  if (!options.includePrivate) where.push("NOT m.private");
  return where;
}

export interface PgRankedOptions {
  limit: number;
  sessionId?: string | null;
  includePrivate: boolean;
}

/**
 * The relevant entries for a plan, best first: an entry's raw score is the sum of the weights of the terms it holds
 * (the SQLite path's rule), ts_rank breaks ties; then relevance.ts cuts weak hits.
 */
export async function rankedRecallPg(sql: SQL, plan: QueryPlan, options: PgRankedOptions): Promise<MemoryRow[]> {
  if (plan.matching.length === 0) return [];
  const params: unknown[] = [];
  const param = (value: unknown) => (params.push(value), `$${params.length}`);
  const queries = plan.matching.map(({ term }) => TSQ(param(term)));
  const score = plan.matching
    .map(({ weight }, i) => (plan.matching.length === 1 ? param(weight) : `CASE WHEN m.fts @@ q.q${i} THEN ${param(weight)}::float8 ELSE 0 END`))
    .join(" + ");
  const any = queries.map((_, i) => `q.q${i}`).join(" || ");
  const where = [`m.fts @@ (${any})`, ...visibleTo(options, param)];
  const text =
    `WITH q AS (SELECT ${queries.map((tsq, i) => `${tsq} AS q${i}`).join(", ")}) ` +
    `SELECT ${PG_MEMORY_COLUMNS}, (${score})::float8 AS score, ts_rank(${RANK_WEIGHTS}, m.fts, ${any}, 1) AS rank ` +
    `FROM memories m, q WHERE ${where.join(" AND ")} ORDER BY score DESC, rank DESC, m.seq DESC LIMIT ${param(options.limit)}`;
  const rows = (await sql.unsafe(text, params)) as Array<MemoryRow & { score: number; rank: number }>;
  return keepRelevant(rows, plan.total).map(({ rank: _rank, ...row }) => row);
}
