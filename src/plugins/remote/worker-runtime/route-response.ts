import type { RouteResponse } from "./types.ts";

/** The JSON a route call returns to the host, which turns it into an HTTP Response. */
export interface RouteReply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** "json" bodies are serialized; "text" bodies are sent as they are. */
  kind: "json" | "text" | "empty";
}

/**
 * Supports both handler styles: Express-like (`res.status(201).json(x)`) and returning a value
 * (a plain value is a 200 JSON body; `{ status, headers, body }` sets all three).
 */
export function createRouteResponse(): { api: RouteResponse; result(returned: unknown): RouteReply } {
  const reply: RouteReply = { status: 200, headers: {}, body: null, kind: "empty" };
  let written = false;
  const api: RouteResponse = {
    status(code) {
      reply.status = code;
      return api;
    },
    setHeader(name, value) {
      reply.headers[name.toLowerCase()] = String(value);
      return api;
    },
    json(body) {
      reply.body = body ?? null;
      reply.kind = "json";
      written = true;
      return api;
    },
    send(body) {
      if (typeof body === "string") {
        reply.body = body;
        reply.kind = "text";
      } else {
        reply.body = body ?? null;
        reply.kind = "json";
      }
      written = true;
      return api;
    },
    end() {
      written = true;
      return api;
    },
  };
  return {
    api,
    result(returned) {
      if (written || returned === undefined || returned === api) return reply;
      if (
        returned &&
        typeof returned === "object" &&
        "body" in returned &&
        ("status" in returned || "headers" in returned)
      ) {
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
