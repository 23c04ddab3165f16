import type { Database } from "bun:sqlite";
import type { MessageUsage, UsageCharge, UsageGroup, UsageRow, UsageScope, UsageStore, UsageTotals } from "../types.ts";
import { groupKind, toUsageRow, usageDeltas, ZERO_TOTALS } from "../usage-rules.ts";
import { addUsageTotals } from "./sessions.ts";
import { migrateSqlite } from "./schema.ts";

const SUMS = `sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
  sum(cached_input_tokens) AS cached_input_tokens, sum(cost_usd) AS cost_usd, sum(calls) AS calls`;

/** SQL of the reads (tests check their plans). */
export const USAGE_SQL = {
  byDay: `SELECT day AS key, ${SUMS} FROM usage_totals WHERE kind = 'all' AND key = '' AND day >= ? GROUP BY day ORDER BY day`,
  // the days asked for, not every day of the kind (the planner would take the primary key's kind prefix)
  byKey: `SELECT key, ${SUMS} FROM usage_totals INDEXED BY usage_totals_day WHERE kind = ? AND day >= ? GROUP BY key ORDER BY key`,
  session: `SELECT ? AS key, ${SUMS} FROM usage_totals WHERE kind = 'session' AND key = ?`,
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

  record(sessionId: string | null, usage: readonly MessageUsage[], charge: UsageCharge): void {
    const deltas = usageDeltas(sessionId, usage.map((one) => ({ usage: one })), charge);
    this.db.transaction(() => addUsageTotals(this.db, deltas))();
  }

  spent(scopes: readonly UsageScope[], fromDay: string, toDay: string): Array<UsageScope & { day: string; cost_usd: number }> {
    if (scopes.length === 0) return [];
    const params = scopes.flatMap((scope) => [scope.kind, scope.key]);
    return this.db
      .query<{ kind: UsageScope["kind"]; key: string; day: string; cost_usd: number }, string[]>(spentSql(scopes.length))
      .all(...params, fromDay, toDay);
  }
}
