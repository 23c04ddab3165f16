import { z } from "zod";
import { PrxError, type ErrorCode } from "../core/errors.ts";
import { lazy } from "../core/lazy.ts";

/** The one error body of every gateway route. */
export const ErrorBodySchema = lazy(() =>
  z
    .object({
      error: z.object({
        code: z.string().describe("stable machine-readable code, e.g. UNAUTHORIZED"),
        message: z.string().describe("what went wrong and where"),
        hint: z.string().optional().describe("what to do next"),
      }),
    })
    .describe("error"),
);
export type ErrorBody = z.infer<ReturnType<typeof ErrorBodySchema>>;

/** HTTP status of each PrxError code at the gateway boundary. A PrxError's own `status` wins. */
const STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  USAGE: 400,
  BAD_REQUEST: 400,
  LIMIT_EXCEEDED: 400,
  TOOL_ARGS: 400,
  PROVIDER_UNKNOWN: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  TOOL_DENIED: 403,
  PLUGIN_PERMISSION: 403,
  NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  PLUGIN_NOT_FOUND: 404,
  TOOL_UNKNOWN: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  PROVIDER_HTTP: 502,
  PROVIDER_UNREACHABLE: 502,
  PROVIDER_PROTOCOL: 502,
  PROVIDER_RESPONSE_TOO_LARGE: 502,
  REMOTE_PROTOCOL: 502,
  REMOTE_RPC: 502,
  REMOTE_CRASHED: 502,
  ABORTED: 503,
  PROVIDER_TIMEOUT: 504,
  PLUGIN_TIMEOUT: 504,
};

export function statusOf(error: PrxError): number {
  return error.status ?? STATUS_BY_CODE[error.code] ?? 500;
}

export function errorBody(error: PrxError): ErrorBody {
  return { error: { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) } };
}

export function jsonResponse(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

export function errorResponse(error: PrxError, headers?: Record<string, string>): Response {
  return jsonResponse(errorBody(error), statusOf(error), headers);
}

/** Elysia's own error codes (routing, parsing, validation) as PrxErrors. */
export function fromElysiaError(code: string | number, error: unknown, method: string, path: string): PrxError {
  if (error instanceof PrxError) return error;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "NOT_FOUND":
      return new PrxError("NOT_FOUND", `no route ${method} ${path}`, { hint: "see /swagger for the API reference" });
    case "PARSE":
      return new PrxError("BAD_REQUEST", `cannot parse the request body of ${method} ${path}: ${message}`);
    case "VALIDATION":
      return new PrxError("BAD_REQUEST", `invalid request to ${method} ${path}: ${validationSummary(error)}`);
    default:
      return new PrxError("INTERNAL", `internal error in ${method} ${path}: ${message}`, { cause: error });
  }
}

function validationSummary(error: unknown): string {
  const all = (error as { all?: Array<{ path?: string; summary?: string; message?: string }> }).all;
  const first = Array.isArray(all) ? all[0] : undefined;
  if (first) return `${first.path ?? ""} ${first.summary ?? first.message ?? ""}`.trim();
  return error instanceof Error ? error.message.slice(0, 300) : "validation failed";
}
