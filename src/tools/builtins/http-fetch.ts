import type { ToolsConfig } from "../../config/schema.ts";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { outboundFetch } from "../../core/outbound/index.ts";
import { HTTP_MAX_REDIRECTS, HTTP_MAX_REQUEST_BODY_BYTES } from "../limits.ts";
import { fail, ok } from "../result.ts";
import type { ToolContext, ToolResult } from "../types.ts";
import { ALLOWLIST_HINT, httpUnavailable, isAllowed, normalizeUrl } from "./http-allowlist.ts";
import { toolOutboundPolicy } from "./outbound-policy.ts";
import type { HttpRequestArgs, HttpToolResponse } from "./schemas.ts";

/** What http_request does once called (http.ts declares it; this loads with the first call). */

/**
 * One http_request: an allowlisted URL through the outbound guard (no private addresses unless
 * [tools.outbound] allow_private, manual redirects each re-checked against the guard and the allowlist, capped body).
 */
export async function httpRequest(config: ToolsConfig, args: HttpRequestArgs, context: ToolContext): Promise<ToolResult> {
  const unavailable = httpUnavailable(config);
  if (unavailable !== undefined) return fail(unavailable);
  const url = normalizeUrl(args.url);
  if (!url) return fail(`http_request: "${args.url}" is not an absolute http(s) URL`);
  if (!isAllowed(config.http_allowlist, url)) {
    return fail(`http_request is denied for ${url.href}: not in tools.http_allowlist. To allow it, ${ALLOWLIST_HINT}`);
  }
  if (args.body !== undefined && Buffer.byteLength(args.body, "utf8") > HTTP_MAX_REQUEST_BODY_BYTES) {
    return fail(`http_request: body exceeds ${HTTP_MAX_REQUEST_BODY_BYTES} bytes`);
  }
  const check = (next: URL) => {
    if (!isAllowed(config.http_allowlist, next)) {
      throw new PrxError("TOOL_DENIED", `${next.href} is not in tools.http_allowlist`, { hint: ALLOWLIST_HINT });
    }
  };
  try {
    const response = await outboundFetch(
      url.href,
      { ...toolOutboundPolicy(config), maxRedirects: HTTP_MAX_REDIRECTS },
      { method: args.method ?? "GET", headers: args.headers, body: args.body, signal: context.signal, check },
    );
    const result: HttpToolResponse = {
      status: response.status,
      url: response.url,
      content_type: response.headers.get("content-type"),
      body: new TextDecoder().decode(response.bytes),
      truncated: response.truncated,
    };
    const text = JSON.stringify(result);
    return response.status >= 200 && response.status < 300
      ? ok(text)
      : fail(`http_request: ${response.url} answered HTTP ${response.status}`, text);
  } catch (error) {
    if (error instanceof PrxError && error.code === "OUTBOUND_TIMEOUT") {
      return fail(`http_request: ${url.href} timed out after ${config.http_timeout_ms} ms`);
    }
    return fail(`http_request: ${errorMessage(error)}`);
  }
}
