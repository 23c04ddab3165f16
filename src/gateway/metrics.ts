/** Hand-written Prometheus text exposition (format 0.0.4): counters and histograms with labels. */
import type { TelemetryStats } from "../telemetry/index.ts";

export const HTTP_DURATION_BUCKETS_S = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];
export const TURN_DURATION_BUCKETS_S = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];
/** Distinct label sets kept per metric; past this, new label sets are folded into one "other" series. */
export const METRIC_MAX_SERIES = 1000;

type Labels = Record<string, string>;

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function labelText(labels: Labels, extra?: [string, string]): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  if (extra) parts.push(`${extra[0]}="${escapeLabel(extra[1])}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
}

function seriesKey(labels: Labels): string {
  let key: string | undefined;
  for (const name in labels) {
    if (key !== undefined) return JSON.stringify(Object.values(labels));
    key = labels[name];
  }
  // no labels, or one: its value (a JSON array for two or more, so keys of one metric never collide)
  return key === undefined ? "" : `"${key}`;
}

function capped(labels: Labels, size: number, key: string, has: boolean): [string, Labels] {
  if (has || size < METRIC_MAX_SERIES) return [key, labels];
  const other = Object.fromEntries(Object.keys(labels).map((k) => [k, "other"]));
  return [seriesKey(other), other];
}

interface CounterSeries {
  labels: Labels;
  value: number;
}

interface HistogramSeries {
  labels: Labels;
  counts: number[];
  sum: number;
  count: number;
}

export class Counter {
  private readonly series = new Map<string, CounterSeries>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  /** The series of these labels, created on first use (past METRIC_MAX_SERIES: the "other" series). */
  seriesFor(labels: Labels): CounterSeries {
    const wanted = seriesKey(labels);
    const [key, chosen] = capped(labels, this.series.size, wanted, this.series.has(wanted));
    let entry = this.series.get(key);
    if (!entry) this.series.set(key, (entry = { labels: chosen, value: 0 }));
    return entry;
  }

  inc(labels: Labels = {}, by = 1): void {
    this.seriesFor(labels).value += by;
  }

  get(labels: Labels = {}): number {
    return this.series.get(seriesKey(labels))?.value ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const { labels, value } of this.series.values()) lines.push(`${this.name}${labelText(labels)} ${value}`);
    return lines.join("\n");
  }
}

export class Histogram {
  private readonly series = new Map<string, HistogramSeries>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly buckets: number[],
  ) {}

  /** The series of these labels, created on first use (past METRIC_MAX_SERIES: the "other" series). */
  seriesFor(labels: Labels): HistogramSeries {
    const wanted = seriesKey(labels);
    const [key, chosen] = capped(labels, this.series.size, wanted, this.series.has(wanted));
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels: chosen, counts: new Array(this.buckets.length).fill(0), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    return entry;
  }

  observe(value: number, labels: Labels = {}): void {
    this.observeInto(this.seriesFor(labels), value);
  }

  observeInto(entry: HistogramSeries, value: number): void {
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) entry.counts[i]!++;
    entry.sum += value;
    entry.count++;
  }

  count(labels: Labels = {}): number {
    return this.series.get(seriesKey(labels))?.count ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const { labels, counts, sum, count } of this.series.values()) {
      this.buckets.forEach((le, i) =>
        lines.push(`${this.name}_bucket${labelText(labels, ["le", String(le)])} ${counts[i]}`),
      );
      lines.push(`${this.name}_bucket${labelText(labels, ["le", "+Inf"])} ${count}`);
      lines.push(`${this.name}_sum${labelText(labels)} ${sum}`);
      lines.push(`${this.name}_count${labelText(labels)} ${count}`);
    }
    return lines.join("\n");
  }
}

/** Everything /metrics reports. One instance per gateway. */
export class GatewayMetrics {
  readonly httpRequests = new Counter("prx_http_requests_total", "HTTP requests by route, method and status");
  readonly httpDuration = new Histogram(
    "prx_http_request_duration_seconds",
    "HTTP request duration until the response head, by route",
    HTTP_DURATION_BUCKETS_S,
  );
  readonly turnDuration = new Histogram("prx_turn_duration_seconds", "agent turn duration", TURN_DURATION_BUCKETS_S);
  readonly providerCalls = new Counter("prx_provider_calls_total", "provider calls made by gateway turns, by provider");
  readonly providerErrors = new Counter(
    "prx_provider_errors_total",
    "failed gateway turns caused by a provider, by provider",
  );

  /** Series of each (route, method, status) seen, so a request costs two map lookups and no label objects. */
  private readonly requestSeries = new Map<string, { count: CounterSeries; duration: HistogramSeries }>();

  request(route: string, method: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      series = {
        count: this.httpRequests.seriesFor({ route, method, status: String(status) }),
        duration: this.httpDuration.seriesFor({ route }),
      };
      // Bounded like the series themselves; past the cap, lookups go through the labels every time.
      if (this.requestSeries.size < METRIC_MAX_SERIES) this.requestSeries.set(key, series);
    }
    series.count.value++;
    this.httpDuration.observeInto(series.duration, seconds);
  }

  /** `telemetry`: the span exporter's counts, when [telemetry] is on. */
  render(toolCalls: Record<string, number>, telemetry?: TelemetryStats): string {
    const tools = new Counter("prx_tool_calls_total", "tool calls by tool");
    for (const [tool, n] of Object.entries(toolCalls)) tools.inc({ tool }, n);
    const parts: Array<{ render(): string }> = [
      this.httpRequests,
      this.httpDuration,
      this.turnDuration,
      this.providerCalls,
      this.providerErrors,
      tools,
    ];
    if (telemetry) {
      const exported = new Counter("prx_telemetry_spans_exported_total", "spans the OTLP receiver accepted");
      exported.inc({}, telemetry.exported);
      const dropped = new Counter("prx_telemetry_spans_dropped_total", "spans not exported, by reason (queue_full, export_failed)");
      dropped.inc({ reason: "queue_full" }, telemetry.droppedQueueFull);
      dropped.inc({ reason: "export_failed" }, telemetry.droppedExportFailed);
      parts.push(exported, dropped);
    }
    return parts.map((metric) => metric.render()).join("\n") + "\n";
  }
}
