import { z } from "zod";
import { PrxError, type ErrorCode } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { describeSchemaIssues, isRouteSchema, type SchemaIssue } from "./route-schema.ts";
import { jsonResponse } from "./json-response.ts";
import { anthropicErrorBody, anthropicStatus, isAnthropicPath } from "./anthropic/errors.ts";

export { jsonResponse };

/** The one error body of every gateway route. */
export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.string().describe("stable machine-readable code, e.g. UNAUTHORIZED"),
      message: z.string().describe("what went wrong and where"),
      hint: z.string().optional().describe("what to do next"),
    }),
  })
  .describe("error");
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

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
  MODEL_NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  AGENT_NOT_FOUND: 404,
  PLUGIN_NOT_FOUND: 404,
  TOOL_UNKNOWN: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  BUDGET_EXCEEDED: 429,
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

/** Routes under this prefix speak the OpenAI wire format, errors included. */
export const OPENAI_PATH_PREFIX = "/v1/";

/** Error codes the OpenAI API itself uses, for the PrxErrors that mean the same thing. */
const OPENAI_CODES: Partial<Record<ErrorCode, string>> = { MODEL_NOT_FOUND: "model_not_found" };

/**
 * An error as the OpenAI API shapes it: `{error: {message, type, param, code}}`. Where OpenAI has a code for the same
 * failure (model_not_found) the object is OpenAI's exactly; otherwise the code is prx's own and a hint rides along.
 */
export function openaiErrorBody(error: PrxError): {
  error: { message: string; type: string; param: string | null; code: string; hint?: string };
} {
  const status = statusOf(error);
  const type = status >= 500 ? "server_error" : status === 429 ? "requests" : "invalid_request_error";
  const param = typeof error.details?.param === "string" ? error.details.param : null;
  const own = error.details?.openaiCode;
  const openai = OPENAI_CODES[error.code] ?? (typeof own === "string" ? own : undefined);
  if (openai) return { error: { message: error.message, type, param, code: openai } };
  return { error: { message: error.message, type, param, code: error.code, ...(error.hint ? { hint: error.hint } : {}) } };
}

/**
 * The error response for a request to `path`: Anthropic's shape under /v1/messages, OpenAI's elsewhere under /v1/,
 * the gateway's own elsewhere.
 */
export function errorResponseFor(path: string, error: PrxError, headers?: Record<string, string>): Response {
  if (isAnthropicPath(path)) {
    const status = anthropicStatus(statusOf(error));
    return jsonResponse(anthropicErrorBody(error, status, headers?.["x-request-id"] ?? null), status, headers);
  }
  const body = path.startsWith(OPENAI_PATH_PREFIX) ? openaiErrorBody(error) : errorBody(error);
  return jsonResponse(body, statusOf(error), headers);
}

/** Elysia's own error codes (routing, parsing, validation) as PrxErrors. */
export function fromElysiaError(code: string | number, error: unknown, method: string, path: string): PrxError {
  if (error instanceof PrxError) return error;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "NOT_FOUND":
      return new PrxError("NOT_FOUND", `no route ${method} ${path}`, { hint: "see /swagger for the API reference" });
    case "PARSE": {
      // A route's parse hook (jsonParser) throws its own 400/413/415; Elysia wraps it.
      const cause = (error as { cause?: unknown }).cause;
      if (cause instanceof PrxError) return cause;
      return new PrxError("BAD_REQUEST", `cannot parse the request body of ${method} ${path}: ${message}`);
    }
    case "VALIDATION":
      return validationError(error, method, path);
    default:
      return new PrxError("INTERNAL", `internal error in ${method} ${path}: ${message}`, { cause: error });
  }
}

/** A request that failed its route's schema: 400 naming the part of the request and the path of each bad field. */
function validationError(error: unknown, method: string, path: string): PrxError {
  const failed = error as { type?: string; validator?: { schema?: unknown }; value?: unknown };
  const schema = failed.validator?.schema;
  const part = failed.type ?? "body";
  let issues: readonly SchemaIssue[] = [];
  if (isRouteSchema(schema)) issues = schema["~standard"].validate(failed.value).issues ?? [];
  const detail = issues.length > 0 ? describeSchemaIssues(issues, `(${part})`) : "it does not match the route's schema";
  const param = issues[0]?.path?.length ? paramOf(issues[0].path) : undefined;
  return new PrxError("BAD_REQUEST", `invalid request ${part}: ${detail}`, {
    hint: `see the schema of ${method} ${path} in /swagger`,
    ...(param ? { details: { param } } : {}),
  });
}

/** A field's path as OpenAI's errors name it in `param`: `tools[0].type`. */
function paramOf(path: NonNullable<SchemaIssue["path"]>): string {
  return path
    .map((part) => (typeof part === "object" ? part.key : part))
    .map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`))
    .join("");
}

/**
 * A streamed reply that ended early, in the log: a turn its client stopped or left (ABORTED) is the user's choice and
 * logged as information; anything else is a warning.
 */
export function logStreamEnd(logger: Logger, what: string, error: PrxError, fields: Record<string, unknown> = {}): void {
  if (error.code === "ABORTED") logger.info(`${what} stopped: ${error.message}`, fields);
  else logger.warn(`${what} failed: ${error.message}`, { ...fields, code: error.code });
}

/** How many errors of a failure's cause chain its logged stack follows (a cycle of causes ends there too). */
export const FAILURE_STACK_MAX_CAUSES = 8;

/**
 * The stacks of `failure` and of the errors it was made from (its `cause` chain, innermost last): where an
 * unexpected error (a SQLite error, a TypeError) was thrown, which the wrapping PrxError's own stack does not say.
 * A cause's own code (SQLite's extended code: SQLITE_BUSY_SNAPSHOT, not only "database is locked") is named with it.
 */
export function failureStack(failure: Error): string {
  const stacks: string[] = [];
  let error: unknown = failure;
  for (let i = 0; i <= FAILURE_STACK_MAX_CAUSES && error instanceof Error; i++) {
    const stack = error.stack ?? error.message;
    const code = (error as { code?: unknown }).code;
    if (i === 0) stacks.push(stack);
    else stacks.push(typeof code === "string" ? `caused by (${code}): ${stack}` : `caused by: ${stack}`);
    error = error.cause;
  }
  return stacks.join("\n");
}

/**
 * A failure answered to a request: 5xx logged (500 as an error, with its stack at debug level), and the headers its
 * kind carries (the request id, Retry-After, WWW-Authenticate on a 401, Allow on a 405).
 */
export function failureResponse(
  path: string,
  failure: PrxError,
  id: string,
  logger: Pick<Logger, "error" | "warn" | "debug">,
): Response {
  const status = statusOf(failure);
  if (status === 500) {
    logger.error(failure.message, { id, code: failure.code });
    logger.debug(failure.message, { id, code: failure.code, stack: failureStack(failure) });
  } else if (status > 500) logger.warn(failure.message, { id, code: failure.code });
  const headers: Record<string, string> = { "x-request-id": id };
  const retry = failure.details?.retryAfterS;
  if (typeof retry === "number") headers["retry-after"] = String(retry);
  if (status === 401) headers["www-authenticate"] = 'Bearer realm="prx"';
  const allow = failure.details?.allow;
  if (typeof allow === "string") headers.allow = allow;
  return errorResponseFor(path, failure, headers);
}
