import type { SQL } from "bun";
import type { MessageUsage, UsageCharge, UsageGroup, UsageRow, UsageScope, UsageStore, UsageTotals } from "../types.ts";
import { groupKind, toUsageRow, usageDeltas, ZERO_TOTALS } from "../usage-rules.ts";
import { usageUpsert } from "./sessions.ts";
import { pg } from "./connect.ts";

const SUMS = `sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
  sum(cached_input_tokens) AS cached_input_tokens, sum(cost_usd) AS cost_usd, sum(calls) AS calls`;

/** Kept usage totals in PostgreSQL, shared by every replica (written by the session store's append). */
export class PgUsageStore implements UsageStore {
  constructor(private readonly sql: SQL) {}

  totals(group: UsageGroup, sinceDay: string): Promise<UsageRow[]> {
    return pg("usage totals", async () => {
      const rows =
        group === "day"
          ? await this.sql.unsafe(
              `SELECT day AS key, ${SUMS} FROM usage_totals WHERE kind = 'all' AND key = '' AND day >= $1 GROUP BY day ORDER BY day`,
              [sinceDay],
            )
          : await this.sql.unsafe(`SELECT key, ${SUMS} FROM usage_totals WHERE kind = $1 AND day >= $2 GROUP BY key ORDER BY key`, [
              groupKind(group),
              sinceDay,
            ]);
      return (rows as Array<Record<string, unknown>>).map(toUsageRow);
    });
  }

  session(id: string): Promise<UsageTotals> {
    return pg("usage of a session", async () => {
      const rows = (await this.sql.unsafe(`SELECT $1::text AS key, ${SUMS} FROM usage_totals WHERE kind = 'session' AND key = $1`, [
        id,
      ])) as Array<Record<string, unknown>>;
      const { key: _key, ...totals } = rows[0] ? toUsageRow(rows[0]) : { key: id, ...ZERO_TOTALS };
      return totals;
    });
  }

  async record(sessionId: string | null, usage: readonly MessageUsage[], charge: UsageCharge): Promise<void> {
    const deltas = usageDeltas(sessionId, usage.map((one) => ({ usage: one })), charge);
    if (deltas.length === 0) return;
    const params: unknown[] = [];
    const text = usageUpsert(deltas, params);
    await pg("usage record", () => this.sql.unsafe(text, params));
  }

  spent(scopes: readonly UsageScope[], fromDay: string, toDay: string): Promise<Array<UsageScope & { day: string; cost_usd: number }>> {
    if (scopes.length === 0) return Promise.resolve([]);
    return pg("usage spent", async () => {
      const params: string[] = [fromDay, toDay];
      const match = scopes
        .map((scope) => {
          params.push(scope.kind, scope.key);
          return `(kind = $${params.length - 1} AND key = $${params.length})`;
        })
        .join(" OR ");
      const rows = (await this.sql.unsafe(
        `SELECT kind, key, day, cost_usd FROM usage_totals WHERE (${match}) AND day >= $1 AND day <= $2`,
        params,
      )) as Array<{ kind: UsageScope["kind"]; key: string; day: string; cost_usd: number | string }>;
      return rows.map((row) => ({ kind: row.kind, key: row.key, day: row.day, cost_usd: Number(row.cost_usd) }));
    });
  }
}
