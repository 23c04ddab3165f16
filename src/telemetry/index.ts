export { openTracer } from "./open.ts";
export { probeReceiver } from "./probe.ts";
export { NOOP_SPAN, NOOP_TRACER, remoteSpan } from "./noop.ts";
export { activeSpan, failSpan, formatTraceparent, inChildSpan, inSpan, parseTraceparent } from "./context.ts";
export { GenAi, Prx } from "./attributes.ts";
export { SpanKind } from "./types.ts";
export type { Attributes, AttributeValue, Span, SpanContext, SpanOptions, TelemetryStats, Tracer } from "./types.ts";
