import type { z } from "zod";
import { errorMessage, isPrxError } from "../../core/errors.ts";
import { parseJsonBounded } from "../../core/json/index.ts";
import { retryAfterMs } from "../send-retries.ts";
import { PlatformError, retryableStatus } from "../platform-error.ts";
import { MatrixErrorSchema } from "./wire.ts";

/** One Client-Server API call with the access token; errors are PlatformErrors (429 carries retry_after_ms). */
export async function matrixCall<T>(
  base: string,
  token: string,
  method: string,
  path: string,
  body: unknown,
  schema: z.ZodType<T>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<T> {
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(`${base.replace(/\/$/, "")}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (cause) {
    throw new PlatformError("matrix", `${method} ${path.split("?")[0]}: network error: ${errorMessage(cause)}`, null, true, undefined, cause);
  }
  let json: unknown;
  try {
    json = parseJsonBounded(await response.text(), "answer");
  } catch (cause) {
    const why = isPrxError(cause) ? cause.message : "answer is not JSON";
    throw new PlatformError("matrix", `${method} ${path.split("?")[0]}: HTTP ${response.status}, ${why}`, response.status, true, undefined, cause);
  }
  if (!response.ok) {
    const error = MatrixErrorSchema.safeParse(json);
    const code = error.success ? `${error.data.errcode} ${error.data.error ?? ""}` : "";
    const wait = response.status === 429 ? retryAfterMs(error.success && error.data.retry_after_ms !== undefined ? error.data.retry_after_ms / 1000 : 1, 1000) : undefined;
    throw new PlatformError("matrix", `${method} ${path.split("?")[0]}: HTTP ${response.status} ${code}`.trim(), response.status, retryableStatus(response.status), wait);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new PlatformError("matrix", `${method} ${path.split("?")[0]}: unexpected answer: ${parsed.error.issues[0]?.message}`, response.status, false);
  return parsed.data;
}
