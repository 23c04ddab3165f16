import type { SQL } from "bun";
import {
  MEMORY_EXACT_COUNT_MAX,
  MEMORY_PG_MAX_REACHING_SETS,
  MEMORY_RANK_TERM_MAX_DOCS,
  MEMORY_RECALL_MIN_SCORE,
  MEMORY_SCORE_EPSILON,
} from "./limits.ts";
import { reachingSets } from "./reaching-sets.ts";
import { keepRelevant, planQuery, type QueryPlan } from "./relevance.ts";
import type { MemoryKeyScope, MemoryRow } from "../storage/types.ts";

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
 * The store's size (ENTRIES) and how many entries hold each term, in one round trip. A term of one word is read from
 * `memory_terms` (the word counts the storage's triggers keep, exact up to MEMORY_RANK_TERM_MAX_DOCS + 1): one
 * primary-key read, no entry visited. A term the parser splits into several words (or none) is counted in the GIN
 * index as before, up to MEMORY_RANK_TERM_MAX_DOCS + 1 entries (a bitmap scan, which reads each entry's row).
 */
export async function planForPg(sql: SQL, terms: string[]): Promise<{ entries: number; plan: QueryPlan }> {
  const { text, params } = planStatementPg(terms);
  const row = (await sql.unsafe(text, params))[0] as Record<string, number>;
  const entries = Math.round(row.entries ?? 0);
  return { entries, plan: planQuery(terms.map((term, i) => ({ term, docs: row[`d${i}`] ?? 0 })), entries) };
}

/** The one statement of planForPg (its plans are checked with EXPLAIN in the tests). */
export function planStatementPg(terms: string[]): { text: string; params: unknown[] } {
  const counts = terms.map((_, i) => {
    const term = `$${i + 3}`;
    return `(SELECT CASE WHEN cardinality(w.a) = 1
        THEN COALESCE((SELECT t.docs FROM memory_terms t WHERE t.lexeme = w.a[1]), 0)
        ELSE (SELECT count(*) FROM (SELECT 1 FROM memories WHERE fts @@ ${TSQ(term)} LIMIT $2) c)::int END
      FROM (SELECT tsvector_to_array(to_tsvector('prx_english', ${term})) AS a) w) AS d${i}`;
  });
  return {
    text: `SELECT ${ENTRIES} AS entries${counts.map((c) => `, ${c}`).join("")}`,
    params: [MEMORY_EXACT_COUNT_MAX + 1, MEMORY_RANK_TERM_MAX_DOCS + 1, ...terms],
  };
}

/**
 * What every recall applies, with `m` the memories table: entries of the session (or of none) when a session is
 * given, and no private entry unless asked. `param` binds a value and returns its placeholder.
 */
export function visibleTo(
  options: { sessionId?: string | null; includePrivate: boolean; keys?: MemoryKeyScope },
  param: (value: unknown) => string,
): string[] {
  const where: string[] = [];
  if (options.sessionId) where.push(`(m.session_id = ${param(options.sessionId)} OR m.session_id IS NULL)`);
  if (!options.includePrivate) where.push("NOT m.private");
  const { prefix, hiddenPrefixes } = options.keys ?? {};
  if (prefix !== undefined) where.push(`starts_with(m.key, ${param(prefix)})`);
  if (hiddenPrefixes?.length) where.push(`NOT EXISTS (SELECT 1 FROM unnest(${param(textArray(hiddenPrefixes))}::text[]) h WHERE starts_with(m.key, h))`);
  return where;
}

/** A PostgreSQL array literal of texts, every element quoted. */
function textArray(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(",")}}`;
}

export interface PgRankedOptions {
  limit: number;
  sessionId?: string | null;
  includePrivate: boolean;
  keys?: MemoryKeyScope;
}

/**
 * The relevant entries for a plan, best first: an entry's raw score is the sum of the weights of the terms it holds
 * (the SQLite path's rule), ts_rank breaks ties; then relevance.ts cuts weak hits.
 */
export async function rankedRecallPg(sql: SQL, plan: QueryPlan, options: PgRankedOptions): Promise<MemoryRow[]> {
  const statement = rankedStatementPg(plan, options);
  if (!statement) return [];
  const rows = (await sql.unsafe(statement.text, statement.params)) as Array<MemoryRow & { score: number; rank: number }>;
  return keepRelevant(rows, plan.total).map(({ rank: _rank, ...row }) => row);
}

/**
 * The statement of rankedRecallPg, or null when no entry can reach MEMORY_RECALL_MIN_SCORE. The GIN index returns
 * only the entries holding a set of terms that reaches it (reaching-sets.ts: an AND per set, an OR of the sets), so
 * rows are read and ranked for those alone, not for every entry holding a term of the query.
 */
export function rankedStatementPg(plan: QueryPlan, options: PgRankedOptions): { text: string; params: unknown[] } | null {
  if (plan.matching.length === 0) return null;
  const floor = MEMORY_RECALL_MIN_SCORE * plan.total - MEMORY_SCORE_EPSILON;
  const sets = reachingSets(plan.matching.map(({ weight }) => weight), floor, MEMORY_PG_MAX_REACHING_SETS);
  if (sets?.length === 0) return null;
  const params: unknown[] = [];
  const param = (value: unknown) => (params.push(value), `$${params.length}`);
  const queries = plan.matching.map(({ term }) => TSQ(param(term)));
  const score = plan.matching
    .map(({ weight }, i) => (plan.matching.length === 1 ? param(weight) : `CASE WHEN m.fts @@ q.q${i} THEN ${param(weight)}::float8 ELSE 0 END`))
    .join(" + ");
  const any = queries.map((_, i) => `q.q${i}`).join(" || ");
  const reaching =
    sets && sets.every((set) => set.length > 0) ? sets.map((set) => `(${set.map((i) => `q.q${i}`).join(" && ")})`).join(" || ") : any;
  const where = [`m.fts @@ (${reaching})`, ...visibleTo(options, param)];
  const text =
    `WITH q AS (SELECT ${queries.map((tsq, i) => `${tsq} AS q${i}`).join(", ")}) ` +
    `SELECT ${PG_MEMORY_COLUMNS}, (${score})::float8 AS score, ts_rank(${RANK_WEIGHTS}, m.fts, ${any}, 1) AS rank ` +
    `FROM memories m, q WHERE ${where.join(" AND ")} ORDER BY score DESC, rank DESC, m.seq DESC LIMIT ${param(options.limit)}`;
  return { text, params };
}
