import type { ToolsConfig } from "../../config/schema.ts";
import { errorMessage } from "../../core/errors.ts";
import { HTTP_MAX_REDIRECTS, HTTP_MAX_REQUEST_BODY_BYTES } from "../limits.ts";
import { fail, ok } from "../result.ts";
import type { ToolContext, ToolResult } from "../types.ts";
import { ALLOWLIST_HINT, httpUnavailable, isAllowed, normalizeUrl } from "./http-allowlist.ts";
import type { HttpRequestArgs, HttpToolResponse } from "./schemas.ts";

/** What http_request does once called (http.ts declares it; this loads with the first call). */

/** Read at most `max` bytes of a body, then stop reading and cancel the rest. */
async function readCapped(response: Response, max: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!response.body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > max) {
      chunks.push(value.subarray(0, max - size));
      size = max;
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, truncated };
}

/** One http_request: allowlisted URL, manual redirects re-checked against the allowlist, capped body. */
export async function httpRequest(config: ToolsConfig, args: HttpRequestArgs, context: ToolContext): Promise<ToolResult> {
  const unavailable = httpUnavailable(config);
  if (unavailable !== undefined) return fail(unavailable);
  let url = normalizeUrl(args.url);
  if (!url) return fail(`http_request: "${args.url}" is not an absolute http(s) URL`);
  if (!isAllowed(config.http_allowlist, url)) {
    return fail(
      `http_request is denied for ${url.href}: not in tools.http_allowlist. To allow it, ${ALLOWLIST_HINT}`,
    );
  }
  if (args.body !== undefined && Buffer.byteLength(args.body, "utf8") > HTTP_MAX_REQUEST_BODY_BYTES) {
    return fail(`http_request: body exceeds ${HTTP_MAX_REQUEST_BODY_BYTES} bytes`);
  }
  const timeout = AbortSignal.timeout(config.http_timeout_ms);
  const signal = AbortSignal.any([context.signal, timeout]);
  let method: string = args.method ?? "GET";
  let body = args.body;
  try {
    for (let hop = 0; ; hop++) {
      const response = await fetch(url, { method, headers: args.headers, body, redirect: "manual", signal });
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location !== null) {
        await response.body?.cancel();
        if (hop >= HTTP_MAX_REDIRECTS) {
          return fail(`http_request: more than ${HTTP_MAX_REDIRECTS} redirects from ${args.url}`);
        }
        const next = normalizeUrl(new URL(location, url).href);
        if (!next || !isAllowed(config.http_allowlist, next)) {
          return fail(
            `http_request: redirect from ${url.href} to ${next?.href ?? location} refused: ` +
              "not in tools.http_allowlist",
          );
        }
        // like fetch's own redirect handling: 303, and 301/302 after POST, continue as GET without a body
        const status = response.status;
        if (status === 303 || ((status === 301 || status === 302) && method === "POST")) {
          method = method === "HEAD" ? "HEAD" : "GET";
          body = undefined;
        }
        url = next;
        continue;
      }
      const { bytes, truncated } = await readCapped(response, config.http_max_response_bytes);
      const result: HttpToolResponse = {
        status: response.status,
        url: url.href,
        content_type: response.headers.get("content-type"),
        body: new TextDecoder().decode(bytes),
        truncated,
      };
      const text = JSON.stringify(result);
      return response.ok ? ok(text) : fail(`http_request: ${url.href} answered HTTP ${response.status}`, text);
    }
  } catch (error) {
    if (timeout.aborted) return fail(`http_request: ${url.href} timed out after ${config.http_timeout_ms} ms`);
    if (context.signal.aborted) return fail(`http_request: aborted`);
    return fail(`http_request: ${url.href} failed: ${errorMessage(error)}`);
  }
}
