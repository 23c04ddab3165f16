import { parseTraceparent, remoteSpan } from "../telemetry/index.ts";
import type { GatewayContext } from "./context.ts";

/**
 * A route's work in the caller's trace (W3C Trace Context: a valid `traceparent` header) when telemetry is on: the
 * turn's span becomes a child of the caller's span. Without the header, or with telemetry off, just `fn`.
 */
export function inCallerTrace<T>(gw: GatewayContext, request: Request, fn: () => T): T {
  const tracer = gw.host.tracer;
  if (!tracer?.enabled) return fn();
  const parent = parseTraceparent(request.headers.get("traceparent"));
  return parent ? tracer.withSpan(remoteSpan(parent), fn) : fn();
}
