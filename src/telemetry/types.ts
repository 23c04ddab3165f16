/** A span's place in a trace: W3C Trace Context ids in lowercase hex, and whether the trace is sampled. */
export interface SpanContext {
  /** 32 hex digits. */
  traceId: string;
  /** 16 hex digits. */
  spanId: string;
  sampled: boolean;
}

/** OTLP's Span.SpanKind. */
export const SpanKind = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;
export type SpanKindValue = (typeof SpanKind)[keyof typeof SpanKind];

export type AttributeValue = string | number | boolean | readonly string[];
export type Attributes = Record<string, AttributeValue | undefined>;

export interface SpanOptions {
  kind?: SpanKindValue;
  attributes?: Attributes;
  /** The parent: absent, the span active where it starts (AsyncLocalStorage); null, a new trace. */
  parent?: SpanContext | null;
}

/** One timed operation. Ending it twice records it once; a span that is not sampled records nothing. */
export interface Span {
  readonly context: SpanContext;
  setAttribute(key: string, value: AttributeValue | undefined): void;
  /** The operation failed: status ERROR with this message (and `error.type` when given). */
  fail(message: string, type?: string): void;
  end(): void;
}

/** What the exporter did so far: spans sent, and spans lost (queue full, or an export that failed). */
export interface TelemetryStats {
  exported: number;
  droppedQueueFull: number;
  droppedExportFailed: number;
  /** Spans waiting in the queue now. */
  queued: number;
}

/** Starts spans; the host holds one for its whole life. With telemetry off it is the no-op tracer (no module loaded). */
export interface Tracer {
  readonly enabled: boolean;
  startSpan(name: string, options?: SpanOptions): Span;
  /** Runs `fn` with `span` active, so spans started inside it (across awaits) are its children. */
  withSpan<T>(span: Span, fn: () => T): T;
  stats(): TelemetryStats;
  /** Sends what is queued (bounded in time) and stops the timer. */
  close(): Promise<void>;
}

/** An ended span as the exporter keeps it until it is sent. */
export interface FinishedSpan {
  name: string;
  kind: SpanKindValue;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  /** Epoch milliseconds with a fraction (performance.timeOrigin + performance.now()). */
  startMs: number;
  endMs: number;
  attributes: Attributes;
  error?: string;
}
