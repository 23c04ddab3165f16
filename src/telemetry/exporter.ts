import { errorMessage } from "../core/errors.ts";
import { createLogger } from "../core/logger.ts";
import { encodeTraces, type OtlpResource } from "./otlp-json.ts";
import { encodeTracesProtobuf } from "./otlp-protobuf.ts";
import type { FinishedSpan, TelemetryStats } from "./types.ts";

/** Ended spans waiting to be sent; past this, new spans are dropped and counted (a turn never waits for the exporter). */
export const TELEMETRY_QUEUE_MAX_SPANS = 2048;
/** Spans per export request; a queue this long is sent without waiting for the interval. */
export const TELEMETRY_BATCH_MAX_SPANS = 512;
/** How often what is queued is sent. */
export const TELEMETRY_EXPORT_INTERVAL_MS = 1000;
/** Longest an export request may take; then its spans count as dropped. */
export const TELEMETRY_EXPORT_TIMEOUT_MS = 10_000;
/** Longest closing waits to send what is left. */
export const TELEMETRY_CLOSE_TIMEOUT_MS = 2000;

const log = createLogger("telemetry");

export interface OtlpExporterOptions {
  /** The traces URL: `<otlp_endpoint>/v1/traces`. */
  url: string;
  headers: Record<string, string>;
  resource: OtlpResource;
  /** OTLP's JSON encoding (the default) or its protobuf one. */
  encoding?: "json" | "protobuf";
  queueMax?: number;
  batchMax?: number;
  intervalMs?: number;
  timeoutMs?: number;
  closeTimeoutMs?: number;
}

/**
 * OTLP over HTTP (JSON or protobuf): a bounded queue of ended spans, sent in batches by a timer (unref'd), one
 * request at a time. A failed or timed-out request is not retried: its spans count as dropped, as do spans the
 * receiver reports rejected (partialSuccess.rejectedSpans).
 */
export class OtlpExporter {
  private queue: FinishedSpan[] = [];
  private inFlight: Promise<void> | null = null;
  private scheduled = false;
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly counts = { exported: 0, droppedQueueFull: 0, droppedExportFailed: 0 };
  private failing = false;
  private readonly queueMax: number;
  private readonly batchMax: number;

  constructor(private readonly options: OtlpExporterOptions) {
    this.queueMax = options.queueMax ?? TELEMETRY_QUEUE_MAX_SPANS;
    this.batchMax = options.batchMax ?? TELEMETRY_BATCH_MAX_SPANS;
    this.timer = setInterval(() => void this.flush(), options.intervalMs ?? TELEMETRY_EXPORT_INTERVAL_MS);
    this.timer.unref?.();
  }

  enqueue(span: FinishedSpan): void {
    if (this.queue.length >= this.queueMax) {
      this.counts.droppedQueueFull++;
      return;
    }
    this.queue.push(span);
    if (this.queue.length >= this.batchMax) this.soon();
  }

  stats(): TelemetryStats {
    return { ...this.counts, queued: this.queue.length };
  }

  /** Sends one batch (or joins the request under way); resolves when it is answered, never rejects. */
  flush(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    if (this.queue.length === 0) return Promise.resolve();
    const batch = this.queue.length <= this.batchMax ? this.queue : this.queue.slice(0, this.batchMax);
    this.queue = batch === this.queue ? [] : this.queue.slice(this.batchMax);
    this.inFlight = this.send(batch).finally(() => {
      this.inFlight = null;
      if (this.queue.length >= this.batchMax) this.soon();
    });
    return this.inFlight;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    const drain = async () => {
      if (this.inFlight) await this.inFlight;
      while (this.queue.length > 0) await this.flush();
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.closeTimeoutMs ?? TELEMETRY_CLOSE_TIMEOUT_MS)));
    await Promise.race([drain(), deadline]);
    clearTimeout(timer);
    if (this.queue.length > 0) {
      log.warn(`${this.queue.length} spans not sent before closing: the OTLP receiver did not answer in time`);
      this.counts.droppedExportFailed += this.queue.length;
      this.queue = [];
    }
  }

  private soon(): void {
    if (this.scheduled || this.inFlight) return;
    this.scheduled = true;
    setTimeout(() => {
      this.scheduled = false;
      void this.flush();
    }, 0);
  }

  private async send(batch: FinishedSpan[]): Promise<void> {
    const { url, headers, resource, timeoutMs } = this.options;
    const protobuf = this.options.encoding === "protobuf";
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { ...headers, "content-type": protobuf ? "application/x-protobuf" : "application/json" },
        body: protobuf ? encodeTracesProtobuf(batch, resource) : encodeTraces(batch, resource),
        signal: AbortSignal.timeout(timeoutMs ?? TELEMETRY_EXPORT_TIMEOUT_MS),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`HTTP ${response.status}${text && !protobuf ? `: ${text.slice(0, 200)}` : ""}`);
      // a protobuf answer's partial success is not read: its spans count as exported
      const rejected = protobuf ? 0 : rejectedSpans(text, batch.length);
      this.counts.exported += batch.length - rejected;
      this.counts.droppedExportFailed += rejected;
      if (this.failing) log.info(`spans reach ${url} again`);
      this.failing = false;
    } catch (error) {
      this.counts.droppedExportFailed += batch.length;
      // said once per outage, not once per batch
      if (!this.failing) log.warn(`${batch.length} spans not sent to ${url}: ${errorMessage(error)} (spans are dropped until it answers)`);
      this.failing = true;
    }
  }
}

/** ExportTraceServiceResponse.partialSuccess.rejectedSpans (an int64: a string or a number in JSON); 0 when absent. */
function rejectedSpans(text: string, sent: number): number {
  if (!text.includes("rejectedSpans")) return 0;
  try {
    const body = JSON.parse(text) as { partialSuccess?: { rejectedSpans?: string | number } };
    const n = Number(body.partialSuccess?.rejectedSpans ?? 0);
    return Number.isSafeInteger(n) && n > 0 ? Math.min(n, sent) : 0;
  } catch {
    // an answer that is not JSON still accepted the batch (the status said so)
    return 0;
  }
}
