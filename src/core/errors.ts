/**
 * Every failure prx reports is a PrxError: a stable machine-readable `code`, a message that says
 * what went wrong and where, and (when we know it) a hint telling the user what to do next.
 */
export const ErrorCodes = [
  "CONFIG_PARSE",
  "CONFIG_INVALID",
  "CONFIG_NOT_FOUND",
  "WORKSPACE",
  "USAGE",
  "PROVIDER_HTTP",
  "PROVIDER_UNREACHABLE",
  "PROVIDER_TIMEOUT",
  "PROVIDER_PROTOCOL",
  "PROVIDER_UNKNOWN",
  "PROVIDER_RESPONSE_TOO_LARGE",
  "TOOL_UNKNOWN",
  "TOOL_ARGS",
  "TOOL_DENIED",
  "TOOL_FAILED",
  "MEMORY",
  "SESSION_NOT_FOUND",
  "AGENT_NOT_FOUND",
  "ABORTED",
  "LIMIT_EXCEEDED",
  "BUDGET_EXCEEDED",
  "NOT_FOUND",
  "BAD_REQUEST",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "CONFLICT",
  "RATE_LIMITED",
  "PAYLOAD_TOO_LARGE",
  "METHOD_NOT_ALLOWED",
  "UNSUPPORTED_MEDIA_TYPE",
  "MODEL_NOT_FOUND",
  "PLUGIN_MANIFEST",
  "PLUGIN_ADMISSION",
  "PLUGIN_PERMISSION",
  "PLUGIN_LOAD",
  "PLUGIN_TRAP",
  "PLUGIN_TIMEOUT",
  "PLUGIN_FUEL",
  "PLUGIN_OUTPUT",
  "PLUGIN_UNSUPPORTED",
  "PLUGIN_ERROR",
  "PLUGIN_NOT_FOUND",
  "PLUGIN_RELOAD",
  "PLUGIN_CONFLICT",
  "PLUGIN_BUILD",
  "REMOTE_PROTOCOL",
  "REMOTE_RPC",
  "REMOTE_CRASHED",
  "HOOKS_INVALID",
  "CHANNEL_CONFIG",
  "CHANNEL_PLATFORM",
  "CHANNEL_RESPONSE_TOO_LARGE",
  "CHANNEL_TIMEOUT",
  "CHANNEL_SIGNATURE",
  "CHANNEL_CRASHED",
  "OUTBOUND_DENIED",
  "OUTBOUND_FAILED",
  "OUTBOUND_TIMEOUT",
  "OUTBOUND_TOO_LARGE",
  "MCP_UNAVAILABLE",
  "MCP_TIMEOUT",
  "MCP_PROTOCOL",
  "STORAGE",
  "STORAGE_LEASE",
  "BUS",
  "GATEWAY_UNREACHABLE",
  "SKILL_INVALID",
  "INTERNAL",
] as const;

export type ErrorCode = (typeof ErrorCodes)[number];

export interface PrxErrorOptions {
  hint?: string;
  cause?: unknown;
  /** HTTP status to use when this error reaches an HTTP boundary. */
  status?: number;
  details?: Record<string, unknown>;
}

export class PrxError extends Error {
  override readonly name = "PrxError";
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly status?: number;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: PrxErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.hint = options.hint;
    this.status = options.status;
    this.details = options.details;
  }

  /** Message plus hint, for terminals and logs. */
  describe(): string {
    return this.hint ? `${this.message}\n  hint: ${this.hint}` : this.message;
  }
}

export function isPrxError(value: unknown, code?: ErrorCode): value is PrxError {
  return value instanceof PrxError && (code === undefined || value.code === code);
}

/** Normalise anything thrown into a message string without losing PrxError details. */
export function errorMessage(error: unknown): string {
  if (error instanceof PrxError) return error.describe();
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Wrap an unknown thrown value as a PrxError with the given code, keeping PrxErrors as they are. */
export function toPrxError(error: unknown, code: ErrorCode = "INTERNAL", context?: string): PrxError {
  if (error instanceof PrxError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new PrxError(code, context ? `${context}: ${message}` : message, { cause: error });
}
