import { runWithSpan, activeSpan } from "./context.ts";
import type { OtlpExporter } from "./exporter.ts";
import { SpanKind, type AttributeValue, type Attributes, type FinishedSpan, type Span, type SpanContext, type SpanOptions, type TelemetryStats, type Tracer } from "./types.ts";

const now = () => performance.timeOrigin + performance.now();

function randomHex(bytes: number): string {
  return crypto.getRandomValues(new Uint8Array(bytes)).toHex();
}

/** Where ended spans go: the OTLP exporter, or a test's list. */
export type SpanSink = Pick<OtlpExporter, "enqueue" | "stats" | "close">;

export interface RecordingTracerOptions {
  sink: SpanSink;
  /** Share of new traces recorded, 0..1; a trace continued from a caller follows the caller's sampled flag. */
  sampleRatio: number;
  random?: () => number;
}

/** A span of a trace that is not sampled: it carries its context (children stay unsampled) and records nothing. */
class UnsampledSpan implements Span {
  constructor(readonly context: SpanContext) {}
  setAttribute(): void {}
  fail(): void {}
  end(): void {}
}

class RecordingSpan implements Span {
  private ended = false;
  private readonly record: FinishedSpan;

  constructor(
    readonly context: SpanContext,
    name: string,
    options: SpanOptions,
    parent: SpanContext | null,
    private readonly sink: SpanSink,
  ) {
    const attributes: Attributes = {};
    if (options.attributes) for (const key in options.attributes) if (options.attributes[key] !== undefined) attributes[key] = options.attributes[key];
    this.record = {
      name,
      kind: options.kind ?? SpanKind.internal,
      traceId: context.traceId,
      spanId: context.spanId,
      ...(parent ? { parentSpanId: parent.spanId } : {}),
      startMs: now(),
      endMs: 0,
      attributes,
    };
  }

  setAttribute(key: string, value: AttributeValue | undefined): void {
    if (value !== undefined && !this.ended) this.record.attributes[key] = value;
  }

  fail(message: string, type?: string): void {
    if (this.ended) return;
    this.record.error = message;
    if (type !== undefined) this.record.attributes["error.type"] = type;
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.record.endMs = now();
    this.sink.enqueue(this.record);
  }
}

/** The tracer of a host with `[telemetry] otlp_endpoint` set. */
export class RecordingTracer implements Tracer {
  readonly enabled = true;
  private readonly random: () => number;

  constructor(private readonly options: RecordingTracerOptions) {
    this.random = options.random ?? Math.random;
  }

  startSpan(name: string, options: SpanOptions = {}): Span {
    const parent = options.parent === undefined ? (activeSpan()?.span.context ?? null) : options.parent;
    const sampled = parent ? parent.sampled : this.options.sampleRatio >= 1 || this.random() < this.options.sampleRatio;
    const context: SpanContext = { traceId: parent ? parent.traceId : randomHex(16), spanId: randomHex(8), sampled };
    if (!sampled) return new UnsampledSpan(context);
    return new RecordingSpan(context, name, options, parent, this.options.sink);
  }

  withSpan<T>(span: Span, fn: () => T): T {
    return runWithSpan({ tracer: this, span }, fn);
  }

  stats(): TelemetryStats {
    return this.options.sink.stats();
  }

  close(): Promise<void> {
    return this.options.sink.close();
  }
}
