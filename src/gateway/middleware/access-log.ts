import type { AccessLog } from "../access-log.ts";
import type { GatewayMetrics } from "../metrics.ts";
import { withRequestState } from "./state.ts";
import type { RecordRequest } from "./types.ts";

export interface AccessLogOptions {
  metrics: Pick<GatewayMetrics, "request">;
  log: AccessLog;
}

/** Records a request once: its duration, status and route in the metrics, and one access-log line. */
export function requestRecorder({ metrics, log }: AccessLogOptions): RecordRequest {
  return (request, state, route, status) => {
    if (state.done) return;
    state.done = true;
    const ms = performance.now() - state.start;
    metrics.request(route, request.method, status, ms / 1000);
    log({
      method: request.method,
      path: state.path,
      status,
      id: state.id,
      ms: Math.round(ms * 10) / 10,
      client: state.client,
      ...(state.credential.kind === "token" ? { token: state.credential.id } : {}),
    });
  };
}

/**
 * Records every answer a route gave (errors are recorded where they become responses, middleware/error-response.ts).
 * Nothing is left to onAfterResponse: it costs a macrotask per request.
 */
export function accessLog(record: RecordRequest) {
  return withRequestState("prx-access-log").onAfterHandle({ as: "global" }, function recordAnswer({ prx, request, route, responseValue, set }) {
    const status = responseValue instanceof Response ? responseValue.status : typeof set.status === "number" ? set.status : 200;
    record(request, prx, route, status);
  });
}
