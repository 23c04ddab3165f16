import type { SQL } from "bun";
import type { UsageDelta, UsageGroup, UsageRow, UsageScope, UsageStore, UsageTotals } from "../types.ts";
import { groupKind, toUsageRow, ZERO_TOTALS } from "../usage-rules.ts";
import { pg } from "./connect.ts";

const SUMS = `sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
  sum(cached_input_tokens) AS cached_input_tokens, sum(cost_usd) AS cost_usd, sum(calls) AS calls`;

/**
 * INSERT ... ON CONFLICT adding the deltas (one row per kind and key) to the kept totals; $1 is a json parameter (the
 * driver encodes the array). One text whatever the number of rows, so each connection prepares it once: a VALUES list
 * would be a new statement, parsed and planned again, for each row count a flush happens to have.
 */
export const USAGE_UPSERT = `INSERT INTO usage_totals (kind, key, day, input_tokens, output_tokens, cached_input_tokens, cost_usd, calls)
    SELECT kind, key, day, input_tokens, output_tokens, cached_input_tokens, cost_usd, calls
    FROM json_to_recordset($1::json) AS d(kind text, key text, day text, input_tokens bigint, output_tokens bigint,
      cached_input_tokens bigint, cost_usd float8, calls bigint)
    ON CONFLICT (kind, key, day) DO UPDATE SET
    input_tokens = usage_totals.input_tokens + excluded.input_tokens,
    output_tokens = usage_totals.output_tokens + excluded.output_tokens,
    cached_input_tokens = usage_totals.cached_input_tokens + excluded.cached_input_tokens,
    cost_usd = usage_totals.cost_usd + excluded.cost_usd, calls = usage_totals.calls + excluded.calls`;

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

  /** One statement: replicas add to the same rows, atomically. */
  async add(deltas: readonly UsageDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    await pg("usage record", () => this.sql.unsafe(USAGE_UPSERT, [deltas]));
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
