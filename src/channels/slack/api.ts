import type { z } from "zod";
import { errorMessage } from "../../core/errors.ts";
import { parseJsonBounded } from "../../core/json/index.ts";
import { retryAfterMs } from "../send-retries.ts";
import { PLATFORM_REQUEST_TIMEOUT_MS } from "../limits.ts";
import { PlatformError, retryableStatus } from "../platform-error.ts";
import { platformRequest } from "../platform-request.ts";
import { SlackEnvelopeSchema } from "./wire.ts";

export const SLACK_DEFAULT_API = "https://slack.com/api";

/**
 * Slack Web API: POST JSON with a bearer token; HTTP 429 carries Retry-After; `{ok: false, error}` otherwise. `form`:
 * the parameters as application/x-www-form-urlencoded (objects JSON-encoded), for the methods that take no JSON
 * (files.getUploadURLExternal, files.completeUploadExternal).
 */
export async function slackCall<T>(
  base: string,
  token: string,
  method: string,
  params: Record<string, unknown>,
  schema: z.ZodType<T>,
  signal?: AbortSignal,
  timeoutMs = PLATFORM_REQUEST_TIMEOUT_MS,
  form = false,
): Promise<T> {
  const body = form
    ? new URLSearchParams(Object.entries(params).map(([key, value]): [string, string] => [key, typeof value === "object" ? JSON.stringify(value) : String(value)])).toString()
    : JSON.stringify(params);
  const init = {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": form ? "application/x-www-form-urlencoded" : "application/json; charset=utf-8" },
    body,
  };
  const response = await platformRequest("slack", method, `${base.replace(/\/$/, "")}/${method}`, init, { timeoutMs, signal });
  if (!response.ok) {
    const wait = response.status === 429 ? retryAfterMs(Number(response.headers.get("retry-after") ?? "1"), 1000) : undefined;
    throw new PlatformError("slack", `${method}: HTTP ${response.status}`, response.status, retryableStatus(response.status), wait);
  }
  let json: unknown;
  try {
    json = parseJsonBounded(response.text, "answer");
  } catch (cause) {
    throw new PlatformError("slack", `${method}: answer is not JSON: ${errorMessage(cause)}`, response.status, true);
  }
  const envelope = SlackEnvelopeSchema.safeParse(json);
  if (!envelope.success) throw new PlatformError("slack", `${method}: unexpected answer shape`, response.status, false);
  if (!envelope.data.ok) {
    const error = envelope.data.error ?? "unknown_error";
    throw new PlatformError("slack", `${method}: ${error}`, response.status, error === "ratelimited" || error === "internal_error" || error === "fatal_error");
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new PlatformError("slack", `${method}: unexpected result: ${parsed.error.issues[0]?.message}`, response.status, false);
  return parsed.data;
}
