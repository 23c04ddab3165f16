import { EventEmitter } from "node:events";
import { PrxError } from "../../../core/errors.ts";
import { REMOTE_ROUTE_MAX_RESPONSE_BYTES } from "../limits.ts";
import type { RouteResponse } from "./types.ts";

/** The JSON a route call returns to the host, which turns it into an HTTP Response. */
export interface RouteReply {
  status: number;
  headers: Record<string, string>;
  /**
   * "json" bodies are serialized, "text" sent as they are, "bytes" are base64, "file" is `{ path, root? }` the host
   * reads from the plugin's folder.
   */
  kind: "json" | "text" | "bytes" | "empty" | "file";
  body: unknown;
}

const encoder = new TextEncoder();

function bytesOf(chunk: string | Uint8Array): Uint8Array {
  return typeof chunk === "string" ? encoder.encode(chunk) : chunk;
}

function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array || value instanceof ArrayBuffer;
}

/**
 * An Express-compatible `res` for one route call, and the reply it collected. Handlers may answer Express-style
 * (`res.status(201).json(x)`, `res.writeHead(200); res.write(a); res.end(b)`, `res.sendFile(p)`, `res.redirect(u)`)
 * or return a value (a plain value is a 200 JSON body; `{ status, headers, body }` sets all three). What is written
 * is kept in memory up to REMOTE_ROUTE_MAX_RESPONSE_BYTES; one byte more throws, naming the limit.
 */
export function createRouteResponse(): { api: RouteResponse; result(returned: unknown): RouteReply | Promise<RouteReply> } {
  const reply: RouteReply = { status: 200, headers: {}, body: null, kind: "empty" };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let started = false;
  let ended = false;
  let onEnd: (() => void) | null = null;

  // a Readable piped into res (stream.pipe(res)) listens for these, as on Node's ServerResponse
  const events = new EventEmitter();
  const finish = () => {
    ended = true;
    onEnd?.();
    queueMicrotask(() => {
      events.emit("finish");
      events.emit("close");
    });
  };
  const append = (chunk: string | Uint8Array) => {
    const bytes = bytesOf(chunk);
    if (size + bytes.byteLength > REMOTE_ROUTE_MAX_RESPONSE_BYTES) {
      throw new PrxError("PAYLOAD_TOO_LARGE", `the route's answer exceeds ${REMOTE_ROUTE_MAX_RESPONSE_BYTES} bytes`, {
        hint: "answer with less, or send a file from the plugin's folder with res.sendFile (streamed by the host)",
      });
    }
    chunks.push(bytes);
    size += bytes.byteLength;
    reply.kind = "bytes";
  };
  const assertOpen = (what: string) => {
    if (ended) throw new PrxError("PLUGIN_OUTPUT", `res.${what}: the response was already sent`, { hint: "answer once per request" });
  };
  const withType = (type: string) => {
    if (reply.headers["content-type"] === undefined) reply.headers["content-type"] = type;
  };

  const api: RouteResponse = {
    on: (name, listener) => (events.on(name, listener), api),
    once: (name, listener) => (events.once(name, listener), api),
    off: (name, listener) => (events.off(name, listener), api),
    removeListener: (name, listener) => (events.off(name, listener), api),
    emit: (name, ...args) => events.emit(name, ...args),
    get writable() {
      return !ended;
    },
    get headersSent() {
      return started || ended;
    },
    get statusCode() {
      return reply.status;
    },
    set statusCode(code: number) {
      reply.status = code;
    },
    status(code) {
      reply.status = code;
      return api;
    },
    sendStatus(code) {
      reply.status = code;
      return api.send(String(code));
    },
    setHeader(name, value) {
      reply.headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
      return api;
    },
    getHeader(name) {
      return reply.headers[name.toLowerCase()];
    },
    removeHeader(name) {
      delete reply.headers[name.toLowerCase()];
    },
    set(name, value) {
      if (typeof name === "string") return api.setHeader(name, value ?? "");
      for (const [k, v] of Object.entries(name)) api.setHeader(k, v);
      return api;
    },
    header(name, value) {
      return api.setHeader(name, value);
    },
    type(contentType) {
      return api.setHeader("content-type", contentType.includes("/") ? contentType : (Bun.file(`x.${contentType}`).type || contentType));
    },
    writeHead(status, headers) {
      assertOpen("writeHead");
      reply.status = status;
      for (const [k, v] of Object.entries(headers ?? {})) api.setHeader(k, String(v));
      started = true;
      return api;
    },
    write(chunk) {
      assertOpen("write");
      append(chunk);
      started = true;
      return true;
    },
    json(body) {
      assertOpen("json");
      reply.body = body ?? null;
      reply.kind = "json";
      finish();
      return api;
    },
    send(body) {
      assertOpen("send");
      if (body === undefined || body === null) {
        if (chunks.length === 0) reply.kind = "empty";
      } else if (typeof body === "string") {
        withType("text/html; charset=utf-8");
        append(body);
      } else if (isBytes(body)) {
        withType("application/octet-stream");
        append(body instanceof ArrayBuffer ? new Uint8Array(body) : body);
      } else {
        return api.json(body);
      }
      finish();
      return api;
    },
    end(chunk) {
      assertOpen("end");
      if (chunk !== undefined && chunk !== null) append(chunk);
      finish();
      return api;
    },
    sendFile(path, options, done) {
      assertOpen("sendFile");
      const opts = typeof options === "function" ? undefined : options;
      for (const [k, v] of Object.entries(opts?.headers ?? {})) api.setHeader(k, v);
      reply.kind = "file";
      reply.body = { path: String(path), ...(opts?.root ? { root: String(opts.root) } : {}) };
      finish();
      (typeof options === "function" ? options : done)?.();
    },
    redirect(statusOrUrl, url) {
      assertOpen("redirect");
      const to = typeof statusOrUrl === "string" ? statusOrUrl : (url ?? "/");
      reply.status = typeof statusOrUrl === "number" ? statusOrUrl : 302;
      api.setHeader("location", to);
      reply.kind = "empty";
      finish();
    },
  };

  const collected = (): RouteReply => {
    if (reply.kind === "bytes") reply.body = Buffer.concat(chunks).toString("base64");
    return reply;
  };

  return {
    api,
    result(returned) {
      if (ended) return collected();
      // as in Express, a handler that returned without answering (it began a streamed answer, or hands res to
      // middleware such as multer that answers later) is answered when res ends; the call's rpc_timeout_ms bounds it
      if (returned === undefined || returned === api) return new Promise((resolve) => (onEnd = () => resolve(collected())));
      if (returned && typeof returned === "object" && "body" in returned && ("status" in returned || "headers" in returned)) {
        const r = returned as { status?: number; headers?: Record<string, string>; body?: unknown };
        if (typeof r.status === "number") reply.status = r.status;
        for (const [k, v] of Object.entries(r.headers ?? {})) reply.headers[k.toLowerCase()] = String(v);
        reply.body = r.body ?? null;
        reply.kind = typeof r.body === "string" ? "text" : "json";
        return reply;
      }
      reply.body = returned;
      reply.kind = typeof returned === "string" ? "text" : "json";
      return reply;
    },
  };
}
