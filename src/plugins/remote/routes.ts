import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { PrxError, errorMessage } from "../../core/errors.ts";
import { jsonDepthError } from "../../core/json/index.ts";
import { REMOTE_MAX_MESSAGE_BYTES } from "./limits.ts";
import type { RouteDescriptor } from "./protocol/index.ts";
import type { SurfaceCalls } from "./types.ts";
import type { RouteReply } from "./worker-runtime/route-response.ts";
import type { WireRouteFile, WireRouteRequest } from "./worker-runtime/route-request.ts";

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
    // a last segment "*" takes the rest of the path (Express's req.params[0])
    const rest = pattern.at(-1) === "*";
    if (rest ? parts.length < pattern.length : pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < pattern.length && ok; i++) {
      const p = pattern[i]!;
      if (rest && i === pattern.length - 1) params["0"] = parts.slice(i).map(decodeURIComponent).join("/");
      else if (p.startsWith(":")) params[p.slice(1)] = decodeURIComponent(parts[i]!);
      else ok = p === parts[i];
    }
    if (ok) return { route, params };
  }
  return null;
}

function json(status: number, body: unknown): Response {
  return Response.json(body, { status });
}

function problem(status: number, code: string, message: string, hint?: string): Response {
  return json(status, { error: { code, message, ...(hint ? { hint } : {}) } });
}

/** Query parameters as Express reads them: a repeated name is an array. */
function queryOf(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of params) {
    const had = out[key];
    out[key] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return out;
}

type ParsedBody = Pick<WireRouteRequest, "body" | "bodyBase64" | "streamBase64" | "files"> | Response;

/**
 * The body as elizaOS's Express server parses it: JSON (depth-checked) and urlencoded forms as objects, text as a
 * string, multipart/form-data (routes declared isMultipart) as fields in body and files in files (on other routes
 * left for the plugin to read as a stream); anything else as bytes (a Buffer in the plugin). The gateway has already
 * capped the body at REMOTE_MAX_MESSAGE_BYTES.
 */
async function parseBody(request: Request, type: string, multipart: boolean): Promise<ParsedBody> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  if (bytes.byteLength === 0) return { body: {} };
  // the body travels base64-encoded or as JSON inside one protocol message
  if (Math.ceil(bytes.byteLength / 3) * 4 > REMOTE_MAX_MESSAGE_BYTES - 64 * 1024) {
    return problem(413, "PAYLOAD_TOO_LARGE", `body exceeds what one plugin message carries (${REMOTE_MAX_MESSAGE_BYTES} bytes, base64)`);
  }
  const mime = type.split(";")[0]!.trim().toLowerCase();
  if (mime === "application/json" || mime.endsWith("+json")) {
    const text = new TextDecoder().decode(bytes);
    const deep = jsonDepthError(text, "request body");
    if (deep) return problem(400, deep.code, deep.message, deep.hint);
    try {
      return { body: JSON.parse(text) as unknown };
    } catch {
      return problem(400, "BAD_REQUEST", "request body is not valid JSON");
    }
  }
  if (mime === "application/x-www-form-urlencoded") return { body: queryOf(new URLSearchParams(new TextDecoder().decode(bytes))) };
  if (mime === "multipart/form-data") {
    // the plugin's own middleware (multer, as elizaOS plugins use it) reads the request as a stream
    if (!multipart) return { body: {}, streamBase64: Buffer.from(bytes).toString("base64") };
    let form: Awaited<ReturnType<Response["formData"]>>;
    try {
      form = await new Response(bytes, { headers: { "content-type": type } }).formData();
    } catch (error) {
      return problem(400, "BAD_REQUEST", `multipart body could not be read: ${errorMessage(error)}`);
    }
    const fields: Record<string, string> = {};
    const files: WireRouteFile[] = [];
    for (const [field, value] of form.entries() as Iterable<[string, string | Blob & { name: string }]>) {
      if (typeof value === "string") fields[field] = value;
      else {
        const content = new Uint8Array(await value.arrayBuffer());
        files.push({
          fieldname: field,
          originalname: value.name,
          mimetype: value.type || "application/octet-stream",
          size: content.byteLength,
          base64: Buffer.from(content).toString("base64"),
        });
      }
    }
    return { body: fields, files };
  }
  if (mime.startsWith("text/")) return { body: new TextDecoder().decode(bytes) };
  return { body: null, bodyBase64: Buffer.from(bytes).toString("base64") };
}

/**
 * A file a handler sent with res.sendFile: inside the plugin's folder (after symlinks), streamed from disk. Anything
 * else is a 404 naming the rule, never a file outside the folder.
 */
async function sendFile(dir: string, spec: unknown, status: number, headers: Headers): Promise<Response> {
  const { path, root } = (spec ?? {}) as { path?: unknown; root?: unknown };
  if (typeof path !== "string" || path === "") return problem(500, "PLUGIN_OUTPUT", "res.sendFile was given no path");
  const base = realpathSync(dir);
  const wanted = isAbsolute(path) ? path : resolve(typeof root === "string" ? resolve(base, root) : base, path);
  let real: string;
  try {
    real = realpathSync(wanted);
  } catch {
    return problem(404, "NOT_FOUND", `file ${path} does not exist in the plugin's folder`);
  }
  const inside = relative(base, real);
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) {
    return problem(404, "NOT_FOUND", "res.sendFile serves files inside the plugin's folder only", "put the file in the plugin's folder");
  }
  const file = Bun.file(real);
  if (!headers.has("content-type") && file.type) headers.set("content-type", file.type);
  return new Response(file, { status, headers });
}

/** Serve `/plugins/<name><path>` through the plugin's announced routes. */
export async function handleRoute(
  sup: SurfaceCalls,
  dir: string,
  method: string,
  path: string,
  request: Request,
): Promise<Response> {
  const found = matchRoute(sup.descriptor().routes ?? [], method, path);
  if (!found) return problem(404, "NOT_FOUND", `plugin ${sup.name} has no route ${method} ${path}`);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, key) => {
    if (!PRIVATE_HEADERS.has(key)) headers[key] = value;
  });
  let parsed: ParsedBody = { body: {} };
  if (method !== "GET" && method !== "DELETE" && method !== "HEAD") {
    parsed = await parseBody(request, headers["content-type"] ?? "", found.route.isMultipart === true);
    if (parsed instanceof Response) return parsed;
  }
  const url = new URL(request.url);
  const req: WireRouteRequest = {
    method,
    path,
    url: `${path}${url.search}`,
    params: found.params,
    query: queryOf(url.searchParams),
    headers,
    ...parsed,
  };
  try {
    const reply = (await sup.call("route", found.route.handler.id, { req }, { signal: request.signal })) as RouteReply;
    const status = Number.isInteger(reply?.status) && reply.status >= 200 && reply.status <= 599 ? reply.status : 200;
    const out = new Headers(reply?.headers ?? {});
    switch (reply?.kind) {
      case "text":
        if (!out.has("content-type")) out.set("content-type", "text/plain; charset=utf-8");
        return new Response(String(reply.body), { status, headers: out });
      case "bytes":
        return new Response(Buffer.from(String(reply.body), "base64"), { status, headers: out });
      case "file":
        return await sendFile(dir, reply.body, status, out);
      case "empty":
        return new Response(null, { status: status === 200 ? 204 : status, headers: out });
      default:
        out.set("content-type", "application/json");
        return new Response(JSON.stringify(reply?.body ?? null), { status, headers: out });
    }
  } catch (error) {
    // a PrxError the handler threw in the plugin (res.write past the limit) keeps its code across the boundary
    const remoteCode = error instanceof PrxError ? (error.details as { remoteCode?: unknown } | undefined)?.remoteCode : undefined;
    const code = remoteCode === "PAYLOAD_TOO_LARGE" ? remoteCode : error instanceof PrxError ? error.code : "PLUGIN_TRAP";
    const status = code === "PLUGIN_TIMEOUT" ? 504 : code === "PAYLOAD_TOO_LARGE" ? 413 : 502;
    return problem(status, code, errorMessage(error));
  }
}
