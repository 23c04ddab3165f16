import type { ToolsConfig } from "../../config/schema.ts";

/**
 * tools.http_allowlist semantics. An entry ending in `*` is a raw prefix of the normalized URL
 * ("https://api.example.com/v1/*"). Any other entry matches that URL exactly or as a prefix that ends at a
 * path boundary, so "https://example.com" allows "https://example.com/x" but never "https://example.com.evil.net".
 */
export function normalizeUrl(raw: string): URL | null {
  try {
    const url = new URL(raw);
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  } catch {
    // not a URL: callers report it as such
    return null;
  }
}

function entryMatches(entry: string, href: string): boolean {
  if (entry.endsWith("*")) return href.startsWith(entry.slice(0, -1));
  const base = normalizeUrl(entry)?.href ?? entry;
  if (href === base) return true;
  if (!href.startsWith(base)) return false;
  if (base.endsWith("/")) return true;
  const next = href[base.length];
  return next === "/" || next === "?" || next === "#";
}

export function isAllowed(allowlist: readonly string[], url: URL): boolean {
  // userinfo in a URL can disguise the host ("https://allowed.com@evil.net"): never allowed
  if (url.username !== "" || url.password !== "") return false;
  return allowlist.some((entry) => entryMatches(entry, url.href));
}

export const ALLOWLIST_HINT =
  'add a URL prefix to [tools] http_allowlist in config.toml, e.g. http_allowlist = ["https://api.example.com/"] ' +
  '(a trailing * is a plain prefix match: "https://api.example.com/v1/*")';

/** Why http_request refuses every call under this config, or undefined when some URL is allowed. */
export function httpUnavailable(config: ToolsConfig): string | undefined {
  if (config.http_allowlist.length > 0) return undefined;
  return `http_request is denied: tools.http_allowlist is empty. To allow it, ${ALLOWLIST_HINT}`;
}
