import type { Database } from "bun:sqlite";
import { ftsPhrase, orOfTerms } from "./fts-query.ts";
import { MEMORY_RANK_TERM_MAX_DOCS } from "./limits.ts";
import { keepRelevant, planQuery, type QueryPlan } from "./relevance.ts";
import { MEMORY_COLUMNS, type MemoryRow } from "./sqlite-rows.ts";

/** Column weights for bm25(), the tie-break between entries matching the same share of the query. */
const BM25_WEIGHTS = "2.0, 1.0, 0.5";
const IN_SESSION = "AND (m.session_id = $session OR m.session_id IS NULL)";
const NOT_PRIVATE = "AND m.private = 0";
const TERM_DOCS =
  "SELECT count(*) AS n FROM (SELECT rowid FROM memories_fts WHERE memories_fts MATCH $match LIMIT $cap)";

/**
 * A ranked search over `terms` weighted terms: an entry's raw score is the sum of the weights of the terms it
 * holds (one membership test per term, each a subquery SQLite evaluates once into a lookup table), then BM25
 * breaks ties. Statements are cached per shape by bun:sqlite.
 */
function rankedSql(terms: number, session: boolean, includePrivate: boolean): string {
  const parts: string[] = [];
  for (let i = 0; i < terms; i++) {
    parts.push(
      terms === 1
        ? "$w0"
        : `CASE WHEN m.seq IN (SELECT rowid FROM memories_fts WHERE memories_fts MATCH $t${i}) THEN $w${i} ELSE 0 END`,
    );
  }
  return `SELECT ${MEMORY_COLUMNS}, (${parts.join(" + ")}) AS score, bm25(memories_fts, ${BM25_WEIGHTS}) AS rank
    FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid
    WHERE memories_fts MATCH $match ${session ? IN_SESSION : ""} ${includePrivate ? "" : NOT_PRIVATE}
    ORDER BY score DESC, rank ASC LIMIT $limit`;
}

/** How many entries hold `term`, counted up to MEMORY_RANK_TERM_MAX_DOCS + 1 (past it the exact number is moot). */
export function termDocs(db: Database, term: string): number {
  return (
    db.query<{ n: number }, { match: string; cap: number }>(TERM_DOCS).get({
      match: ftsPhrase(term),
      cap: MEMORY_RANK_TERM_MAX_DOCS + 1,
    })?.n ?? 0
  );
}

/** Weigh `terms` against the store's `entries`. */
export function planFor(db: Database, terms: string[], entries: number): QueryPlan {
  return planQuery(
    terms.map((term) => ({ term, docs: termDocs(db, term) })),
    entries,
  );
}

export interface RankedOptions {
  limit: number;
  sessionId?: string | null;
  includePrivate: boolean;
}

/** The relevant entries for a plan, best first, with their score as a share of the query (see relevance.ts). */
export function rankedRecall(db: Database, plan: QueryPlan, options: RankedOptions): MemoryRow[] {
  if (plan.matching.length === 0) return [];
  const params: Record<string, string | number> = {
    match: orOfTerms(plan.matching.map((t) => t.term)),
    limit: options.limit,
  };
  plan.matching.forEach(({ term, weight }, i) => {
    params[`w${i}`] = weight;
    if (plan.matching.length > 1) params[`t${i}`] = ftsPhrase(term);
  });
  if (options.sessionId) params.session = options.sessionId;
  const sql = rankedSql(plan.matching.length, Boolean(options.sessionId), options.includePrivate);
  const rows = db.query<MemoryRow & { score: number; rank: number }, Record<string, string | number>>(sql).all(params);
  return keepRelevant(rows, plan.total).map(({ rank: _rank, ...row }) => row);
}
