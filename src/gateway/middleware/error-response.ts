import { NotFoundError } from "elysia";
import { PrxError, toPrxError } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import { failureResponse, fromElysiaError } from "../errors.ts";
import { requestIdOf } from "../request-id.ts";
import { beginRequest, NOT_STARTED, withRequestState } from "./state.ts";
import type { RecordRequest } from "./types.ts";

export interface ErrorResponseOptions {
  /** Methods answering `path` (a 405 names them in its Allow header). */
  methodsOf(path: string): string[];
  clientAddress(request: Request): string;
  logger: Pick<Logger, "error" | "warn" | "debug">;
  record: RecordRequest;
}

/**
 * Every failure as the standard JSON error with its status: a PrxError thrown by a middleware before routing (429,
 * 401, 413: recorded as route "rejected"), by a route's parser, schema or handler, or no route at all (404, or 405
 * when the path answers other methods). 5xx are logged.
 */
export function errorResponse({ methodsOf, clientAddress, logger, record }: ErrorResponseOptions) {
  return withRequestState("prx-error-response").onError({ as: "global" }, function answerError({ prx, request, code, error, route }) {
    const state = prx === NOT_STARTED ? { ...beginRequest(request, clientAddress(request)), id: requestIdOf(request) } : prx;
    const unmatched = error instanceof NotFoundError;
    // Thrown before routing: a middleware refused the request.
    const rejected = !route && !unmatched;
    // No route matched (a route's own PrxError NOT_FOUND reaches here with the same code): 405 when others would.
    const allowed = unmatched ? methodsOf(state.path) : [];
    const failure = rejected
      ? toPrxError(error)
      : allowed.length > 0
        ? methodNotAllowed(request.method, state.path, allowed)
        : fromElysiaError(code, error, request.method, state.path);
    const response = failureResponse(state.path, failure, state.id, logger);
    const label = rejected ? "rejected" : code === "NOT_FOUND" || !route ? "unmatched" : route;
    record(request, state, label, response.status);
    return response;
  });
}

function methodNotAllowed(method: string, path: string, allowed: string[]): PrxError {
  return new PrxError("METHOD_NOT_ALLOWED", `${method} is not allowed on ${path}; it answers ${allowed.join(", ")}`, {
    hint: `send ${allowed.join(" or ")} (see /swagger for the API reference)`,
    details: { allow: allowed.join(", ") },
  });
}
