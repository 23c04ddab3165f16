import { z } from "zod";
import type { BudgetConfig } from "../config/schema.ts";
import { PrxError } from "../core/errors.ts";
import type { UsageGroup, UsageRow, UsageStore, UsageTotals } from "../storage/types.ts";
import { dayIn } from "./calendar.ts";

/** `since` given as days back: at most this many (ten years). */
export const USAGE_SINCE_MAX_DAYS = 3660;
/** The days a report covers when `since` is not given: today and the 29 before it. */
export const USAGE_DEFAULT_DAYS = 30;

export const UsageGroups = ["day", "session", "model", "channel", "agent"] as const satisfies readonly UsageGroup[];

export const UsageTotalsWireSchema = z.object({
  input_tokens: z.number().int().describe("prompt tokens, cached ones included"),
  output_tokens: z.number().int(),
  cached_input_tokens: z.number().int(),
  cost_usd: z.number().describe("from model prices; models of unknown price count 0"),
  calls: z.number().int().describe("model calls"),
});

export const UsageReportSchema = z
  .object({
    since: z.string().describe("first day counted (YYYY-MM-DD in time_zone)"),
    until: z.string().describe("today in time_zone"),
    time_zone: z.string(),
    group: z.enum(UsageGroups),
    rows: z.array(UsageTotalsWireSchema.extend({ key: z.string().describe("the day, session id, <provider>/<model>, channel or agent id") })),
    total: UsageTotalsWireSchema,
  })
  .describe("usage totals from `since` to today, one row per group key, ordered by key");

export type UsageReport = z.infer<typeof UsageReportSchema>;

/** The first day of a report: "YYYY-MM-DD" as it is, "<n>d" as today and the n-1 days before it. */
export function sinceDay(since: string | undefined, zone: string, now: number): string {
  const value = since ?? `${USAGE_DEFAULT_DAYS}d`;
  const days = /^(\d{1,5})d$/.exec(value);
  if (days) {
    const n = Number(days[1]);
    if (n < 1 || n > USAGE_SINCE_MAX_DAYS) {
      throw new PrxError("BAD_REQUEST", `since "${value}": between 1d and ${USAGE_SINCE_MAX_DAYS}d`, { status: 400 });
    }
    // noon of today's date, stepped back in whole days, is within the intended day whatever the zone's offset
    const [y, m, d] = dayIn(zone, now).split("-").map(Number) as [number, number, number];
    return new Date(Date.UTC(y, m - 1, d - (n - 1), 12)).toISOString().slice(0, 10);
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`))) return value;
  throw new PrxError("BAD_REQUEST", `since "${value.slice(0, 40)}" is neither a day (YYYY-MM-DD) nor a number of days (7d)`, {
    status: 400,
    hint: "for example since=2026-01-01 or since=7d",
  });
}

/** The report of `group` from `since` to today, in the budget's time zone. */
export async function usageReport(
  store: Pick<UsageStore, "totals">,
  budget: BudgetConfig,
  options: { since?: string; group?: UsageGroup; now: number },
): Promise<UsageReport> {
  const zone = budget.time_zone;
  const since = sinceDay(options.since, zone, options.now);
  const group = options.group ?? "day";
  const rows = await store.totals(group, since);
  return { since, until: dayIn(zone, options.now), time_zone: zone, group, rows, total: sumOf(rows) };
}

function sumOf(rows: readonly UsageRow[]): UsageTotals {
  const total: UsageTotals = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, cost_usd: 0, calls: 0 };
  for (const row of rows) {
    total.input_tokens += row.input_tokens;
    total.output_tokens += row.output_tokens;
    total.cached_input_tokens += row.cached_input_tokens;
    total.cost_usd += row.cost_usd;
    total.calls += row.calls;
  }
  return total;
}
