import type { z } from "zod";
import { isPrxError } from "../../core/errors.ts";
import { parseJsonBounded } from "../../core/json/index.ts";
import { retryAfterMs } from "../send-retries.ts";
import { PlatformError, retryableStatus } from "../platform-error.ts";
import { platformRequest } from "../platform-request.ts";
import { MatrixErrorSchema } from "./wire.ts";

/**
 * One Client-Server API call with the access token; errors are PlatformErrors (429 carries retry_after_ms). A body of
 * bytes goes as they are, with `contentType` (a media upload); any other body as JSON.
 */
export async function matrixCall<T>(
  base: string,
  token: string,
  method: string,
  path: string,
  body: unknown,
  schema: z.ZodType<T>,
  timeoutMs: number,
  signal?: AbortSignal,
  contentType = "application/json",
): Promise<T> {
  const what = `${method} ${path.split("?")[0]}`;
  const raw = body instanceof Uint8Array;
  const init = { method, headers: { authorization: `Bearer ${token}`, "content-type": raw ? contentType : "application/json" }, body: body === undefined ? undefined : raw ? body : JSON.stringify(body) };
  const response = await platformRequest("matrix", what, `${base.replace(/\/$/, "")}${path}`, init, { timeoutMs, signal });
  let json: unknown;
  try {
    json = parseJsonBounded(response.text, "answer");
  } catch (cause) {
    const why = isPrxError(cause) ? cause.message : "answer is not JSON";
    throw new PlatformError("matrix", `${what}: HTTP ${response.status}, ${why}`, response.status, true, undefined, cause);
  }
  if (!response.ok) {
    const error = MatrixErrorSchema.safeParse(json);
    const code = error.success ? `${error.data.errcode} ${error.data.error ?? ""}` : "";
    const wait = response.status === 429 ? retryAfterMs(error.success && error.data.retry_after_ms !== undefined ? error.data.retry_after_ms / 1000 : 1, 1000) : undefined;
    throw new PlatformError("matrix", `${what}: HTTP ${response.status} ${code}`.trim(), response.status, retryableStatus(response.status), wait);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new PlatformError("matrix", `${what}: unexpected answer: ${parsed.error.issues[0]?.message}`, response.status, false);
  return parsed.data;
}
