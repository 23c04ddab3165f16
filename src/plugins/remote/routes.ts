import { PrxError, errorMessage } from "../../core/errors.ts";
import { jsonDepthError } from "../../core/json/index.ts";
import { REMOTE_MAX_MESSAGE_BYTES } from "./limits.ts";
import type { RouteDescriptor } from "./protocol/index.ts";
import type { SurfaceCalls } from "./types.ts";
import type { RouteReply } from "./worker-runtime/route-response.ts";

/** Headers never forwarded to plugin code. */
const PRIVATE_HEADERS = new Set(["authorization", "cookie", "proxy-authorization", "x-api-key"]);

export function matchRoute(
  routes: RouteDescriptor[],
  method: string,
  path: string,
): { route: RouteDescriptor; params: Record<string, string> } | null {
  const parts = path.split("/").filter(Boolean);
  for (const route of routes) {
    if (route.type !== method.toUpperCase()) continue;
    const pattern = route.path.split("/").filter(Boolean);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < pattern.length && ok; i++) {
      const p = pattern[i]!;
      if (p.startsWith(":")) params[p.slice(1)] = decodeURIComponent(parts[i]!);
      else ok = p === parts[i];
    }
    if (ok) return { route, params };
  }
  return null;
}

function json(status: number, body: unknown): Response {
  return Response.json(body, { status });
}

/** Serve `/plugins/<name><path>` through the plugin's announced routes. */
export async function handleRoute(
  sup: SurfaceCalls,
  method: string,
  path: string,
  request: Request,
): Promise<Response> {
  const found = matchRoute(sup.descriptor().routes ?? [], method, path);
  if (!found)
    return json(404, {
      error: { code: "NOT_FOUND", message: `plugin ${sup.name} has no route ${method} ${path}` },
    });
  const headers: Record<string, string> = {};
  request.headers.forEach((value, key) => {
    if (!PRIVATE_HEADERS.has(key)) headers[key] = value;
  });
  let body: unknown = null;
  if (method !== "GET" && method !== "DELETE") {
    const text = await request.text();
    if (Buffer.byteLength(text) > REMOTE_MAX_MESSAGE_BYTES) {
      return json(413, {
        error: { code: "PAYLOAD_TOO_LARGE", message: `body exceeds ${REMOTE_MAX_MESSAGE_BYTES} bytes` },
      });
    }
    if ((headers["content-type"] ?? "").includes("json") && text) {
      const deep = jsonDepthError(text, "request body");
      if (deep) return json(400, { error: { code: deep.code, message: deep.message, hint: deep.hint } });
      try {
        body = JSON.parse(text);
      } catch {
        return json(400, { error: { code: "BAD_REQUEST", message: "request body is not valid JSON" } });
      }
    } else body = text;
  }
  const url = new URL(request.url);
  const req = { method, path, params: found.params, query: Object.fromEntries(url.searchParams), headers, body };
  try {
    const reply = (await sup.call("route", found.route.handler.id, { req }, { signal: request.signal })) as RouteReply;
    const status = Number.isInteger(reply?.status) && reply.status >= 200 && reply.status <= 599 ? reply.status : 200;
    const out = new Headers(reply?.headers ?? {});
    if (reply?.kind === "text") {
      if (!out.has("content-type")) out.set("content-type", "text/plain; charset=utf-8");
      return new Response(String(reply.body), { status, headers: out });
    }
    if (reply?.kind === "empty") return new Response(null, { status: status === 200 ? 204 : status, headers: out });
    out.set("content-type", "application/json");
    return new Response(JSON.stringify(reply?.body ?? null), { status, headers: out });
  } catch (error) {
    const code = error instanceof PrxError ? error.code : "PLUGIN_TRAP";
    const status = code === "PLUGIN_TIMEOUT" ? 504 : code === "PAYLOAD_TOO_LARGE" ? 413 : 502;
    return json(status, { error: { code, message: errorMessage(error) } });
  }
}
