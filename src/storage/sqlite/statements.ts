import type { Database, SQLQueryBindings, Statement } from "bun:sqlite";

/**
 * How many statements `statement()` keeps for one database. The stores route only the fixed SQL of a turn's paths
 * through it (about 40 texts); a text past the limit is not kept and goes to `db.query` instead, so SQL built per call
 * cannot grow a database's set without bound.
 */
export const STATEMENTS_PER_DATABASE_MAX = 64;

const kept = new WeakMap<Database, Map<string, Statement>>();

/**
 * The statement for `sql` on `db`, prepared once and returned again on every later call. `db.query` finds a statement
 * by its text in a cache of the 20 last used, moving it to the front (a turn's 17 texts: ~8-18 us, here ~1-2 us), and
 * prepares it again once 20 other texts ran in between: in a measured mix of 21 texts a turn (session, a recall that
 * ranks, idempotency key, stored response, channel inbox) it prepared every one again, ~280-370 us. Each is still
 * prepared by `db.query`, so `db` owns it: closing `db` finalizes it and releases the file at once (a `db.prepare`
 * statement left unfinalized would keep the connection open), and one `db.clearQueryCache()` finalized is prepared
 * again here. The set goes with `db` (a WeakMap): no other database sees it.
 */
export function statement<Row = unknown, Params extends SQLQueryBindings | SQLQueryBindings[] = SQLQueryBindings[]>(
  db: Database,
  sql: string,
): Statement<Row, Params extends unknown[] ? Params : [Params]> {
  let statements = kept.get(db);
  if (!statements) kept.set(db, (statements = new Map()));
  let found = statements.get(sql);
  if (found === undefined || found.isFinalized) {
    found = db.query(sql);
    if (statements.size < STATEMENTS_PER_DATABASE_MAX || statements.has(sql)) statements.set(sql, found);
  }
  return found as Statement<Row, Params extends unknown[] ? Params : [Params]>;
}

/** How many statements `statement()` keeps for `db` (tests). */
export function keptStatementCount(db: Database): number {
  return kept.get(db)?.size ?? 0;
}
