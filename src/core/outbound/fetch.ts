import { lookup } from "node:dns/promises";
import { errorMessage, PrxError } from "../errors.ts";
import { blockedRange, ipLiteral, sameAddress } from "./address.ts";
import { matchesAny, normalizeHost } from "./hosts.ts";
import type { OutboundPolicy, OutboundRequest, OutboundResponse, Resolved, Resolver } from "./types.ts";

export const ALLOW_PRIVATE_HINT =
  "a non-public address is reached only when config.toml allows it: [tools.outbound] allow_addresses = [\"<that address>\"] " +
  "for one service you run yourself, or allow_private = true for all of them";

const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

function denied(message: string, hint: string): PrxError {
  return new PrxError("OUTBOUND_DENIED", message, { hint, status: 403 });
}

/** The URL if prx may ask for it at all (scheme, no userinfo, the host lists), else a refusal saying why. */
export function checkUrl(raw: string, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw denied(`"${raw}" is not an absolute URL`, "give an absolute http:// or https:// URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw denied(`${url.protocol} URLs are not fetched (${raw})`, "give an http:// or https:// URL");
  }
  // userinfo can disguise the host ("https://trusted.com@evil.net") and would send credentials along
  if (url.username !== "" || url.password !== "") {
    throw denied(`${url.origin}: a URL with a user name or password is refused`, "remove the user:password@ part");
  }
  const host = normalizeHost(url.hostname);
  if (matchesAny(policy.denyHosts, host)) {
    throw denied(`${host} is in [tools.outbound] deny_hosts`, "remove it from deny_hosts in config.toml to allow it");
  }
  if (policy.allowHosts.length > 0 && !matchesAny(policy.allowHosts, host)) {
    throw denied(
      `${host} is not in [tools.outbound] allow_hosts`,
      `add "${host}" (or "*.${host.split(".").slice(-2).join(".")}") to allow_hosts in config.toml`,
    );
  }
  return url;
}

/**
 * The addresses of a URL's host, every one checked: a name with any non-public address is refused as a whole (a
 * rebinding name may answer differently on the next lookup, so the checked address is the one connected to).
 */
export async function resolveChecked(url: URL, policy: OutboundPolicy, resolver: Resolver = systemResolver): Promise<Resolved> {
  const host = normalizeHost(url.hostname);
  const literal = ipLiteral(url.hostname);
  let addresses: readonly string[];
  if (literal !== null) addresses = [literal];
  else {
    try {
      addresses = await resolver(host);
    } catch (error) {
      throw new PrxError("OUTBOUND_FAILED", `${host} could not be resolved: ${errorMessage(error)}`, {
        hint: "check the host name",
        status: 502,
      });
    }
    if (addresses.length === 0) throw new PrxError("OUTBOUND_FAILED", `${host} has no address`, { status: 502 });
  }
  if (!policy.allowPrivate) {
    for (const address of addresses) {
      if (policy.allowAddresses.some((allowed) => sameAddress(allowed, address))) continue;
      const range = blockedRange(address);
      if (range !== undefined) {
        const via = literal === null ? `${host} resolves to ${address}, ` : `${address} is `;
        throw denied(`${via}a ${range} address, which is refused`, ALLOW_PRIVATE_HINT);
      }
    }
  }
  return { host, addresses, pinned: addresses[0]! };
}

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

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers that carry credentials: never sent on to another origin after a redirect. */
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/** The request sent to the checked address itself, with the name kept in Host and (for https) in SNI and the certificate check. */
function pinnedFetch(url: URL, resolved: Resolved, init: RequestInit, ca: string | undefined): Promise<Response> {
  const target = new URL(url.href);
  target.hostname = resolved.pinned.includes(":") ? `[${resolved.pinned}]` : resolved.pinned;
  const headers = new Headers(init.headers);
  headers.set("host", url.host);
  const named = ipLiteral(url.hostname) === null;
  const tls = url.protocol === "https:" && (named || ca) ? { ...(named ? { serverName: resolved.host } : {}), ...(ca ? { ca } : {}) } : undefined;
  return fetch(target, { ...init, headers, redirect: "manual", ...(tls ? { tls } : {}) });
}

/** A refusal of a redirect's target says where it was redirected from. */
async function redirected<T>(from: URL | undefined, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (from === undefined || !(error instanceof PrxError)) throw error;
    throw new PrxError(error.code, `redirect from ${from.href} refused: ${error.message}`, { hint: error.hint, status: error.status });
  }
}

/**
 * One fetch on the model's or a user's behalf: each URL (the first and every redirect) is checked against the host
 * lists, its name resolved and every address checked, and the checked address connected to; redirects are followed
 * by hand at most policy.maxRedirects times; the whole exchange is bounded by policy.timeoutMs and the body by
 * policy.maxBytes (cut there, `truncated`).
 */
export async function outboundFetch(
  raw: string,
  policy: OutboundPolicy,
  request: OutboundRequest = {},
  resolver: Resolver = systemResolver,
): Promise<OutboundResponse> {
  const deadline = AbortSignal.timeout(policy.timeoutMs);
  const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
  let url = checkUrl(raw, policy);
  request.check?.(url);
  let method = request.method ?? "GET";
  let body = request.body;
  const headers = new Headers(request.headers);
  const redirects: string[] = [];
  let from: URL | undefined;
  try {
    while (true) {
      const resolved = await redirected(from, () => resolveChecked(url, policy, resolver));
      signal.throwIfAborted();
      const response = await pinnedFetch(url, resolved, { method, headers, body, signal }, request.ca);
      const location = response.headers.get("location");
      if (REDIRECTS.has(response.status) && location !== null) {
        await response.body?.cancel();
        if (redirects.length >= policy.maxRedirects) {
          throw new PrxError("OUTBOUND_FAILED", `more than ${policy.maxRedirects} redirects from ${raw}`, { status: 502 });
        }
        const next = await redirected(url, async () => {
          const checked = checkUrl(new URL(location, url).href, policy);
          request.check?.(checked);
          return checked;
        });
        if (next.origin !== url.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
        // as fetch's own redirect handling: 303, and 301/302 after POST, go on as GET without a body
        const status = response.status;
        if (status === 303 || ((status === 301 || status === 302) && method === "POST")) {
          method = method === "HEAD" ? "HEAD" : "GET";
          body = undefined;
          headers.delete("content-type");
        }
        redirects.push(next.href);
        from = url;
        url = next;
        continue;
      }
      const { bytes, truncated } = await readCapped(response, policy.maxBytes);
      return { status: response.status, url: url.href, headers: response.headers, bytes, truncated, redirects };
    }
  } catch (error) {
    if (error instanceof PrxError) throw error;
    if (deadline.aborted) {
      throw new PrxError("OUTBOUND_TIMEOUT", `${url.href} did not answer within ${policy.timeoutMs} ms`, { status: 504 });
    }
    if (request.signal?.aborted) throw new PrxError("ABORTED", `fetch of ${url.href} was aborted`);
    throw new PrxError("OUTBOUND_FAILED", `${url.href} failed: ${errorMessage(error)}`, { status: 502, cause: error });
  }
}
