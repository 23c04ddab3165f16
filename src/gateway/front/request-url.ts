import type { FrontServer } from "./types.ts";

/** Where a request URL's path starts (after "scheme://authority"), without parsing it into a URL object. */
function pathStart(url: string): number {
  return url.indexOf("/", url.indexOf("//") + 2);
}

/** The path of a request URL, without parsing it into a URL object. */
export function pathOf(url: string): string {
  const start = pathStart(url);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

/**
 * Elysia finds a URL's path by searching for "/" from index 11, past "https://" and a 3-character host: a request
 * whose Host is shorter (`Host: x`, no port) would be routed by a piece of its path. Such a URL gets the server's port
 * after its host (or, on a default port, the listening host instead); null when the URL is routable as it is.
 */
export function routableUrl(url: string, server: Pick<FrontServer, "port" | "url">): string | null {
  const start = pathStart(url);
  if (start >= 11 || start < 0) return null;
  const scheme = url.slice(0, url.indexOf("//") + 2);
  const authority = url.slice(scheme.length, start);
  const defaultPort = scheme === "https://" ? 443 : 80;
  const port = server.port;
  const host = authority.includes(":") || port === undefined || port === defaultPort ? server.url.host : `${authority}:${port}`;
  return `${scheme}${host}${url.slice(start)}`;
}
