import { HTTP_REQUEST_TIMEOUT_MS, MAX_HTTP_RESPONSE_BYTES } from "../limits.ts";
import { type HostContext, requirePermission } from "./context.ts";
import { HostError } from "./errors.ts";

export const HTTP_PERMISSION = "http-outbound";

/**
 * Allowlist rules: an entry ending in `*` matches every URL starting with the rest; an entry without `://` is a
 * host (or host:port) that matches any http(s) URL on it; any other entry must equal the URL (after normalising).
 */
export function allowlistMatches(url: URL, allowlist: readonly string[]): boolean {
  const href = url.href;
  for (const entry of allowlist) {
    if (entry.endsWith("*")) {
      if (href.startsWith(entry.slice(0, -1))) return true;
    } else if (!entry.includes("://")) {
      if (url.host === entry.toLowerCase() || url.hostname === entry.toLowerCase()) return true;
    } else {
      try {
        if (new URL(entry).href === href) return true;
      } catch {
        // an unparsable entry matches nothing
      }
    }
  }
  return false;
}

/** Shared by http-outbound, websocket and wasi:http: grant, allowlist and per-call count. Returns the parsed URL. */
export function checkOutbound(ctx: HostContext, rawUrl: string, schemes: string[], permissions: string[]): URL {
  requirePermission(ctx, ...permissions);
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new HostError(`invalid URL: ${rawUrl}`);
  }
  if (!schemes.includes(url.protocol))
    throw new HostError(`URL scheme ${url.protocol} is not allowed (use ${schemes.join(" or ")})`);
  const asHttp = url.protocol === "ws:" || url.protocol === "wss:" ? new URL(url.href.replace(/^ws/, "http")) : url;
  if (!allowlistMatches(asHttp, ctx.plugin.httpAllowlist) && !allowlistMatches(url, ctx.plugin.httpAllowlist)) {
    throw new HostError(
      `URL ${url.href} is not in the http_allowlist of plugin ${ctx.plugin.name}; ` +
        "add it (a trailing * is a prefix match) to [permissions] http_allowlist",
    );
  }
  if (ctx.call.httpRequests >= ctx.plugin.maxHttpRequestsPerCall) {
    throw new HostError(
      `plugin ${ctx.plugin.name} exceeded max_http_requests_per_call (${ctx.plugin.maxHttpRequestsPerCall})`,
    );
  }
  ctx.call.httpRequests++;
  return url;
}

export interface GuestHttpResponse {
  status: number;
  headers: [string, string][];
  body: Uint8Array;
}

export async function readCapped(response: Response, cap: number, what: string): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (declared > cap) throw new HostError(`${what}: response body of ${declared} bytes exceeds the ${cap} byte cap`);
  if (!response.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel();
      throw new HostError(`${what}: response body exceeds the ${cap} byte cap`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

export async function httpRequest(
  ctx: HostContext,
  method: string,
  rawUrl: string,
  headers: [string, string][],
  body: Uint8Array | undefined,
  timeoutMs = HTTP_REQUEST_TIMEOUT_MS,
): Promise<GuestHttpResponse> {
  const url = checkOutbound(ctx, rawUrl, ["http:", "https:"], [HTTP_PERMISSION]);
  let response: Response;
  try {
    response = await fetch(url, {
      method: method.toUpperCase(),
      headers,
      body: body && method.toUpperCase() !== "GET" && method.toUpperCase() !== "HEAD" ? body : undefined,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const reason =
      (error as Error).name === "TimeoutError"
        ? `timed out after ${timeoutMs} ms`
        : (error as Error).message;
    throw new HostError(`http ${method} ${url.href} failed: ${reason}`);
  }
  const bytes = await readCapped(response, MAX_HTTP_RESPONSE_BYTES, `http ${method} ${url.href}`);
  return { status: response.status, headers: [...response.headers.entries()], body: bytes };
}

export function httpImports(ctx: HostContext) {
  return {
    request: (method: string, url: string, headers: [string, string][], body: Uint8Array | undefined) =>
      httpRequest(ctx, method, url, headers, body),
  };
}
