import type { AsyncLocalStorage } from "node:async_hooks";
import type { Span, SpanContext, SpanOptions, Tracer } from "./types.ts";

/** The span a piece of work runs in, with the tracer that started it (so lower layers need no tracer handed down). */
export interface ActiveSpan {
  tracer: Tracer;
  span: Span;
}

// Entered only by an enabled tracer: with telemetry off it is never made (node:async_hooks stays unloaded) and no
// span is active.
let storage: AsyncLocalStorage<ActiveSpan> | undefined;

export function activeSpan(): ActiveSpan | undefined {
  return storage?.getStore();
}

export function runWithSpan<T>(active: ActiveSpan, fn: () => T): T {
  storage ??= new (require("node:async_hooks") as typeof import("node:async_hooks")).AsyncLocalStorage<ActiveSpan>();
  return storage.run(active, fn);
}

/**
 * `fn` in a child span of the active one (plugin calls, channel deliveries: layers with no tracer of their own); just
 * `fn` when no span is active. The span fails when `fn` throws or rejects.
 */
export function inChildSpan<T>(name: string, options: SpanOptions, fn: () => Promise<T>): Promise<T> {
  const active = storage?.getStore();
  if (!active) return fn();
  return inSpan(active.tracer, active.tracer.startSpan(name, options), fn);
}

/** `fn` with `span` active; the span ends when it settles, failed when it throws or rejects. */
export async function inSpan<T>(tracer: Tracer, span: Span, fn: () => Promise<T>): Promise<T> {
  try {
    return await tracer.withSpan(span, fn);
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

export function failSpan(span: Span, error: unknown): void {
  const code = typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : undefined;
  const type = code ?? (error instanceof Error ? error.name : "Error");
  span.fail(error instanceof Error ? error.message : String(error), type);
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/**
 * A W3C Trace Context `traceparent` header (version 00, or a later one read as 00), or null when it is absent or
 * invalid (then the work starts a trace of its own, as the specification says).
 */
export function parseTraceparent(header: string | null | undefined): SpanContext | null {
  if (!header) return null;
  const m = TRACEPARENT.exec(header.trim());
  if (!m) return null;
  const [, version, traceId, spanId, flags] = m as unknown as [string, string, string, string, string];
  if (version === "ff" || (version === "00" && header.trim().length !== 55)) return null;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return null;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

export function formatTraceparent(context: SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.sampled ? "01" : "00"}`;
}
