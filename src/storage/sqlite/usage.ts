import type { Database } from "bun:sqlite";
import type { UsageDelta, UsageGroup, UsageRow, UsageScope, UsageStore, UsageTotals } from "../types.ts";
import { groupKind, toUsageRow, ZERO_TOTALS } from "../usage-rules.ts";
import { migrateSqlite } from "./schema.ts";
import { statement } from "./statements.ts";

const SUMS = `sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
  sum(cached_input_tokens) AS cached_input_tokens, sum(cost_usd) AS cost_usd, sum(calls) AS calls`;

/** SQL of the reads (tests check their plans). */
export const USAGE_SQL = {
  byDay: `SELECT day AS key, ${SUMS} FROM usage_totals WHERE kind = 'all' AND key = '' AND day >= ? GROUP BY day ORDER BY day`,
  // the days asked for, not every day of the kind (the planner would take the primary key's kind prefix)
  byKey: `SELECT key, ${SUMS} FROM usage_totals INDEXED BY usage_totals_day WHERE kind = ? AND day >= ? GROUP BY key ORDER BY key`,
  session: `SELECT ? AS key, ${SUMS} FROM usage_totals WHERE kind = 'session' AND key = ?`,
  add: `INSERT INTO usage_totals (kind, key, day, input_tokens, output_tokens, cached_input_tokens, cost_usd, calls)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (kind, key, day) DO UPDATE SET
       input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens,
       cached_input_tokens = cached_input_tokens + excluded.cached_input_tokens, cost_usd = cost_usd + excluded.cost_usd,
       calls = calls + excluded.calls`,
} as const;

/** What budgets read: the cost per day of `scopes` scopes between two days. */
export function spentSql(scopes: number): string {
  const match = Array.from({ length: scopes }, () => "(kind = ? AND key = ?)").join(" OR ");
  return `SELECT kind, key, day, cost_usd FROM usage_totals WHERE (${match}) AND day >= ? AND day <= ?`;
}

/** Kept usage totals in the workspace SQLite file (written by the session store's append). */
export class SqliteUsageStore implements UsageStore {
  constructor(private readonly db: Database) {
    migrateSqlite(db);
  }

  totals(group: UsageGroup, sinceDay: string): UsageRow[] {
    const rows =
      group === "day"
        ? this.db.query<Record<string, unknown>, [string]>(USAGE_SQL.byDay).all(sinceDay)
        : this.db.query<Record<string, unknown>, [string, string]>(USAGE_SQL.byKey).all(groupKind(group), sinceDay);
    return rows.map(toUsageRow);
  }

  session(id: string): UsageTotals {
    const row = this.db.query<Record<string, unknown>, [string, string]>(USAGE_SQL.session).get(id, id);
    const { key: _key, ...totals } = row ? toUsageRow(row) : { key: id, ...ZERO_TOTALS };
    return totals;
  }

  add(deltas: readonly UsageDelta[]): void {
    if (deltas.length === 0) return;
    const upsert = statement(this.db, USAGE_SQL.add);
    this.db.transaction(() => {
      for (const d of deltas) upsert.run(d.kind, d.key, d.day, d.input_tokens, d.output_tokens, d.cached_input_tokens, d.cost_usd, d.calls);
    }).immediate();
  }

  spent(scopes: readonly UsageScope[], fromDay: string, toDay: string): Array<UsageScope & { day: string; cost_usd: number }> {
    if (scopes.length === 0) return [];
    const params = scopes.flatMap((scope) => [scope.kind, scope.key]);
    const spent = statement<{ kind: UsageScope["kind"]; key: string; day: string; cost_usd: number }, string[]>(this.db, spentSql(scopes.length));
    return spent.all(...params, fromDay, toDay);
  }
}
