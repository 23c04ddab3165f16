import type { z } from "zod";
import { isPrxError } from "../../core/errors.ts";
import { parseJsonBounded } from "../../core/json/index.ts";
import { retryAfterMs } from "../send-retries.ts";
import { PlatformError, retryableStatus } from "../platform-error.ts";
import { platformRequest } from "../platform-request.ts";
import { platformDownload } from "../platform-download.ts";
import { TelegramEnvelopeSchema } from "./wire.ts";

export const TELEGRAM_DEFAULT_API = "https://api.telegram.org";

/**
 * One Bot API method call (https://core.telegram.org/bots/api#making-requests): POST JSON to
 * `<base>/bot<token>/<method>`, answer `{ok, result}` or `{ok: false, error_code, description, parameters}`.
 * Errors are PlatformErrors: 429 carries retry_after, 409 (another poller or a webhook is set) and 5xx are retryable.
 */
export class TelegramApi {
  constructor(
    private readonly base: string,
    private readonly token: string,
  ) {}

  /**
   * `schema`: the result's zod schema (wire.ts); `timeoutMs`: the time cap of the call, answer included. With `file`,
   * the call is multipart/form-data with the file's bytes under `file.field` and every other parameter a form field
   * (objects as JSON), as https://core.telegram.org/bots/api#sending-files says to upload a new file.
   */
  async call<T>(
    method: string,
    params: Record<string, unknown>,
    schema: z.ZodType<T>,
    timeoutMs: number,
    signal?: AbortSignal,
    file?: { field: string; name: string; mime: string; bytes: Uint8Array },
  ): Promise<T> {
    const url = `${this.base.replace(/\/$/, "")}/bot${this.token}/${method}`;
    let init: RequestInit = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(params) };
    if (file) {
      const form = new FormData();
      for (const [key, value] of Object.entries(params)) form.append(key, typeof value === "object" ? JSON.stringify(value) : String(value));
      form.append(file.field, new Blob([file.bytes], { type: file.mime }), file.name);
      init = { method: "POST", body: form };
    }
    const response = await platformRequest("telegram", method, url, init, { timeoutMs, signal });
    let json: unknown;
    try {
      json = parseJsonBounded(response.text, "answer");
    } catch (error) {
      const why = isPrxError(error) ? error.message : "a body that is not JSON";
      throw new PlatformError("telegram", `${method}: HTTP ${response.status} with ${why}`, response.status, retryableStatus(response.status));
    }
    const envelope = TelegramEnvelopeSchema.safeParse(json);
    if (!envelope.success) {
      throw new PlatformError("telegram", `${method}: unexpected answer shape (HTTP ${response.status})`, response.status, retryableStatus(response.status));
    }
    const body = envelope.data;
    if (!body.ok) {
      const status = body.error_code;
      const retryable = retryableStatus(status) || status === 409;
      const wait = status === 429 ? retryAfterMs(body.parameters?.retry_after, 1000) : undefined;
      throw new PlatformError("telegram", `${method}: ${status} ${body.description}`, status, retryable, wait);
    }
    const result = schema.safeParse(body.result);
    if (!result.success) {
      throw new PlatformError("telegram", `${method}: unexpected result shape: ${result.error.issues[0]?.message}`, response.status, false);
    }
    return result.data;
  }

  /** A file's bytes from `<base>/file/bot<token>/<file_path>` (the path getFile answered), within `maxBytes`. */
  async download(filePath: string, maxBytes: number, timeoutMs: number, signal?: AbortSignal): Promise<Uint8Array> {
    const url = `${this.base.replace(/\/$/, "")}/file/bot${this.token}/${filePath.split("/").map(encodeURIComponent).join("/")}`;
    const response = await platformDownload("telegram", "file download", url, { timeoutMs, maxBytes, ...(signal ? { signal } : {}) });
    if (!response.ok) throw new PlatformError("telegram", `file download: HTTP ${response.status}`, response.status, retryableStatus(response.status));
    return response.bytes;
  }
}
