import type { z } from "zod";
import { parseJsonBounded } from "../../core/json/index.ts";
import { PlatformCodeError } from "../platform-json.ts";
import { PlatformError, retryableStatus } from "../platform-error.ts";
import { platformRequest, type PlatformRequestBounds } from "../platform-request.ts";
import { retryAfterMs } from "../send-retries.ts";
import { EnvelopeSchema, FEISHU_RATE_LIMITED, FEISHU_TOKEN_INVALID } from "./wire.ts";

export interface FeishuCall<T> {
  what: string;
  url: string;
  /** The tenant access token (none for the token call itself). */
  token?: string;
  body?: unknown;
  schema: z.ZodType<T>;
  bounds: PlatformRequestBounds;
}

/**
 * One call of the Open Platform: every answer is `{code, msg, ...}` and code 0 alone is success, whatever the HTTP
 * status. A rate limit (HTTP 429, or code 99991400 on older APIs answering 400) waits the `x-ogw-ratelimit-reset`
 * seconds (https://open.feishu.cn/document/server-docs/api-call-guide/frequency-control); it, 5xx and a rejected
 * token (99991663: the caller fetches another) are retryable.
 */
export async function feishuJson<T>(call: FeishuCall<T>): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  if (call.body !== undefined) headers["content-type"] = "application/json; charset=utf-8";
  const init: RequestInit = { method: call.body === undefined ? "GET" : "POST", headers };
  if (call.body !== undefined) init.body = JSON.stringify(call.body);
  const answer = await platformRequest("feishu", call.what, call.url, init, call.bounds);
  let json: unknown;
  try {
    json = parseJsonBounded(answer.text, "answer");
  } catch {
    throw new PlatformError("feishu", `${call.what}: HTTP ${answer.status}, answer is not JSON`, answer.status, retryableStatus(answer.status) || answer.ok);
  }
  const envelope = EnvelopeSchema.safeParse(json);
  const code = envelope.success ? envelope.data.code : undefined;
  if (!answer.ok || code !== 0) {
    const limited = answer.status === 429 || code === FEISHU_RATE_LIMITED;
    const wait = limited ? retryAfterMs(Number(answer.headers.get("x-ogw-ratelimit-reset") ?? "1"), 1000) : undefined;
    const said = envelope.success ? `: ${envelope.data.msg ?? "no message"} (code ${code})` : "";
    const retryable = limited || code === FEISHU_TOKEN_INVALID || retryableStatus(answer.status);
    throw new PlatformCodeError("feishu", `${call.what}: HTTP ${answer.status}${said}`, answer.status, retryable, code, wait);
  }
  const parsed = call.schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PlatformError("feishu", `${call.what}: unexpected answer: ${issue?.path.join(".")}: ${issue?.message}`, answer.status, false);
  }
  return parsed.data;
}
