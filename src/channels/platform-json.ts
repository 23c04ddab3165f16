import { z } from "zod";
import { errorMessage } from "../core/errors.ts";
import { parseJsonBounded } from "../core/json/index.ts";
import { PlatformError, retryableStatus } from "./platform-error.ts";
import { platformRequest, type PlatformRequestBounds } from "./platform-request.ts";
import { retryAfterMs } from "./send-retries.ts";

/**
 * The answer of a call whose content is not used (a typing indicator, a read receipt): any JSON object. Built once:
 * zod compiles a schema's parser at its first parse (~0.2 ms), which a schema built per call would pay every time.
 */
export const AnyObjectAnswerSchema = z.looseObject({});

export interface PlatformJsonCall<T> {
  platform: string;
  /** What the call does, for errors ("send", "media lookup"). */
  what: string;
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  schema: z.ZodType<T>;
  bounds: PlatformRequestBounds;
  /**
   * A failed answer's own words (the platform's error object) and whether it is worth retrying; the HTTP status
   * decides when it returns undefined.
   */
  explain?: (status: number, json: unknown) => { message: string; retryable: boolean; code?: number } | undefined;
}

/** A platform error that carries the platform's own error code (WhatsApp 131047, Graph 80007...). */
export class PlatformCodeError extends PlatformError {
  constructor(platform: string, message: string, status: number, retryable: boolean, readonly platformCode: number | undefined, retryAfter?: number) {
    super(platform, message, status, retryable, retryAfter);
  }
}

/**
 * One JSON call of a REST platform (WhatsApp's Graph API, Mattermost, the Bot Framework): bounded by
 * platform-request.ts; a 429 waits its Retry-After; 429 and 5xx are retryable; the answer is parsed with the
 * platform's zod schema (a shape it does not match is not retried: the platform said something else).
 */
export async function platformJson<T>(call: PlatformJsonCall<T>): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json", ...call.headers };
  const form = call.body instanceof FormData;
  if (call.body !== undefined && !form) headers["content-type"] = "application/json";
  const init: RequestInit = { method: call.method ?? (call.body === undefined ? "GET" : "POST"), headers };
  if (call.body !== undefined) init.body = form ? (call.body as FormData) : JSON.stringify(call.body);
  const answer = await platformRequest(call.platform, call.what, call.url, init, call.bounds);
  let json: unknown = undefined;
  let notJson: unknown = null;
  try {
    json = answer.text === "" ? {} : parseJsonBounded(answer.text, "answer");
  } catch (cause) {
    notJson = cause;
  }
  if (!answer.ok) {
    const wait = answer.status === 429 ? retryAfterMs(Number(answer.headers.get("retry-after") ?? "1"), 1000) : undefined;
    const said = json === undefined ? undefined : call.explain?.(answer.status, json);
    const message = `${call.what}: HTTP ${answer.status}${said ? `: ${said.message}` : ""}`;
    throw new PlatformCodeError(call.platform, message, answer.status, said?.retryable ?? retryableStatus(answer.status), said?.code, wait);
  }
  if (notJson) throw new PlatformError(call.platform, `${call.what}: answer is not JSON: ${errorMessage(notJson)}`, answer.status, true);
  const parsed = call.schema.safeParse(json);
  if (!parsed.success) {
    throw new PlatformError(call.platform, `${call.what}: unexpected answer: ${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}`, answer.status, false);
  }
  return parsed.data;
}
