import type { Span, SpanContext, TelemetryStats, Tracer } from "./types.ts";

const NO_CONTEXT: SpanContext = { traceId: "00000000000000000000000000000000", spanId: "0000000000000000", sampled: false };

/** A span that records nothing (telemetry off, or a trace that is not sampled when it has no context of its own). */
export const NOOP_SPAN: Span = {
  context: NO_CONTEXT,
  setAttribute() {},
  fail() {},
  end() {},
};

const NO_STATS: TelemetryStats = { exported: 0, droppedQueueFull: 0, droppedExportFailed: 0, queued: 0 };

/** Telemetry off: nothing is recorded, nothing is sent, no timer runs. */
export const NOOP_TRACER: Tracer = {
  enabled: false,
  startSpan: () => NOOP_SPAN,
  withSpan: (_span, fn) => fn(),
  stats: () => NO_STATS,
  close: () => Promise.resolve(),
};

/** A caller's span (from a `traceparent` header): made active, the spans started under it continue its trace. */
export function remoteSpan(context: SpanContext): Span {
  return { ...NOOP_SPAN, context };
}
