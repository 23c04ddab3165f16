import { api } from "./api.ts";
import { h } from "./dom.ts";

export interface UsageTotals { input_tokens: number; output_tokens: number; cached_input_tokens: number; cost_usd: number; calls: number }
interface UsageReport { since: string; until: string; time_zone: string; rows: Array<UsageTotals & { key: string }>; total: UsageTotals }

/** Days the status view's chart shows. */
const CHART_DAYS = 14;

export function usd(value: number): string {
  return `$${value.toFixed(value !== 0 && value < 0.01 ? 4 : 2)}`;
}

/** "1,234 in (200 cached) · 56 out · $0.0012" */
export function usageLine(t: UsageTotals): string {
  const n = (v: number) => v.toLocaleString("en-US");
  const cached = t.cached_input_tokens ? ` (${n(t.cached_input_tokens)} cached)` : "";
  return `${n(t.input_tokens)} tokens in${cached} · ${n(t.output_tokens)} out · ${usd(t.cost_usd)}`;
}

/** The last CHART_DAYS days: a bar per day (cost, or tokens while nothing has a price) and the total. */
export async function usageChart(): Promise<HTMLElement> {
  const report = await api<UsageReport>(`/api/usage?since=${CHART_DAYS}d&group=day`);
  const byDay = new Map(report.rows.map((row) => [row.key, row]));
  const days: string[] = [];
  for (let at = Date.parse(`${report.since}T12:00:00Z`); days.length < CHART_DAYS; at += 86_400_000) days.push(new Date(at).toISOString().slice(0, 10));
  const priced = report.total.cost_usd > 0;
  const value = (row: UsageTotals | undefined) => (row ? (priced ? row.cost_usd : row.input_tokens + row.output_tokens) : 0);
  const max = Math.max(...days.map((day) => value(byDay.get(day))), Number.MIN_VALUE);
  const bars = days.map((day) => {
    const row = byDay.get(day);
    const label = `${day}: ${row ? usageLine(row) : "nothing"}`;
    return h("div", { class: "bar", title: label, "aria-label": label, style: `height: ${Math.round((value(row) / max) * 100)}%` });
  });
  return h(
    "div",
    {},
    h("div", { class: "usage-chart", role: "img", "aria-label": `usage per day, ${report.since} to ${report.until}` }, ...bars),
    h("p", { class: "muted small", "data-testid": "usage-total" }, `${report.since} – ${report.until} (${report.time_zone}): ${usageLine(report.total)}`),
  );
}
