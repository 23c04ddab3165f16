import { api } from "./api.ts";
import { h } from "./dom.ts";
import { errorBox } from "./error-box.ts";
import { usageChart, usd, type UsageTotals } from "./usage.ts";

interface UsageReport { since: string; until: string; time_zone: string; rows: Array<UsageTotals & { key: string }>; total: UsageTotals }

const GROUPS = { day: "per day", session: "per session", model: "per model", channel: "per channel" } as const;
const PERIODS = ["7d", "30d", "90d"] as const;

/** Usage: tokens and cost of the model calls, per day, session, model or channel over a period, and the last 14 days as bars. */
export function usagePage(): { el: HTMLElement; dispose(): void } {
  const chart = h("div");
  const table = h("div", { "data-testid": "usage-table" });
  const group = h("select", { "aria-label": "group by", "data-testid": "usage-group" }, ...Object.entries(GROUPS).map(([k, v]) => h("option", { value: k }, v)));
  const period = h("select", { "aria-label": "period", "data-testid": "usage-period" }, ...PERIODS.map((p) => h("option", { value: p, selected: p === "30d" }, `last ${p.slice(0, -1)} days`)));
  const n = (v: number) => v.toLocaleString("en-US");
  const load = async () => {
    try {
      const report = await api<UsageReport>(`/api/usage?since=${period.value}&group=${group.value}`);
      const rows = group.value === "day" ? [...report.rows].reverse() : [...report.rows].sort((a, b) => b.cost_usd - a.cost_usd || b.input_tokens + b.output_tokens - (a.input_tokens + a.output_tokens));
      table.replaceChildren(
        h("p", { class: "muted small" }, `${report.since} – ${report.until} (${report.time_zone})`),
        h("div", { class: "scroll" }, h("table", { class: "list numbers" },
          h("thead", {}, h("tr", {}, ...[group.value, "calls", "tokens in", "cached", "tokens out", "cost"].map((c) => h("th", {}, c)))),
          h("tbody", {}, ...rows.map((r) => h("tr", { "data-key": r.key },
            h("td", {}, r.key), h("td", {}, n(r.calls)), h("td", {}, n(r.input_tokens)), h("td", {}, n(r.cached_input_tokens)), h("td", {}, n(r.output_tokens)), h("td", {}, usd(r.cost_usd))))),
          h("tfoot", {}, h("tr", {}, h("th", {}, "total"), ...[n(report.total.calls), n(report.total.input_tokens), n(report.total.cached_input_tokens), n(report.total.output_tokens), usd(report.total.cost_usd)].map((v) => h("th", {}, v)))))),
        rows.length === 0 ? h("p", { class: "muted" }, "No model call in this period.") : "",
      );
    } catch (error) {
      table.replaceChildren(errorBox(error));
    }
  };
  group.addEventListener("change", () => void load());
  period.addEventListener("change", () => void load());
  void usageChart().then((c) => chart.replaceChildren(c), (error: unknown) => chart.replaceChildren(errorBox(error)));
  void load();
  const el = h(
    "section",
    { class: "page", "data-testid": "usage-view" },
    h("header", { class: "page-head" }, h("h2", {}, "Usage")),
    h("section", { class: "card" }, h("h3", {}, "Last 14 days"), chart),
    h("section", { class: "card" }, h("div", { class: "row" }, group, period), table),
  );
  return { el, dispose() {} };
}
