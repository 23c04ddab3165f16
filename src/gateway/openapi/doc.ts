import { z } from "zod";
import { ErrorBodySchema } from "../errors.ts";

type Schema = z.ZodType;
type ResponseDoc = Schema | { description: string; schema?: Schema; contentType?: string };

export interface RouteDoc {
  summary: string;
  description?: string;
  tags: string[];
  responses: Record<number, ResponseDoc>;
  /** Statuses answered with the standard error body. */
  errors?: number[];
  /** Public routes set this to false; everything else needs a bearer token. */
  auth?: boolean;
}

const ERROR_TEXT: Record<number, string> = {
  400: "bad request (malformed JSON, invalid fields)",
  401: "missing, malformed or revoked bearer token",
  403: "forbidden",
  404: "not found",
  409: "conflict",
  413: "body larger than gateway.max_body_bytes",
  415: "content type is not application/json",
  429: "rate limited (see Retry-After)",
  501: "not supported by the configured memory backend",
  502: "provider failed",
  503: "not ready or shutting down",
};

/** A zod schema as OpenAPI 3.0 JSON Schema. */
export function jsonSchema(schema: Schema): unknown {
  return z.toJSONSchema(schema, { target: "openapi-3.0", io: "output", unrepresentable: "any" });
}

const beforeDocs: Array<() => Promise<unknown>> = [];

/** A module some route docs take their schemas from, loaded lazily: the OpenAPI document waits for it. */
export function loadBeforeDocs(load: () => Promise<unknown>): void {
  beforeDocs.push(load);
}

/** Resolves once every module registered with loadBeforeDocs is loaded. */
export async function docsReady(): Promise<void> {
  await Promise.all(beforeDocs.map((load) => load()));
}

/**
 * OpenAPI `detail` for a route: summary, tags, security and responses (the request body is documented from the
 * route's own `body` schema, openapi/document.ts). The JSON Schema conversion runs only when the document is
 * requested (getters), so building the app stays cheap.
 */
export function doc(route: RouteDoc): Record<string, unknown> {
  const auth = route.auth ?? true;
  const detail: Record<string, unknown> = {
    summary: route.summary,
    tags: route.tags,
    ...(route.description ? { description: route.description } : {}),
    ...(auth ? { security: [{ bearer: [] }] } : {}),
  };
  Object.defineProperty(detail, "responses", {
    enumerable: true,
    get: () => {
      const out: Record<string, unknown> = {};
      for (const [status, value] of Object.entries(route.responses)) {
        const entry = value instanceof z.ZodType ? { description: value.description ?? "OK", schema: value } : value;
        const type = entry.contentType ?? "application/json";
        out[status] = {
          description: entry.description,
          ...(entry.schema ? { content: { [type]: { schema: jsonSchema(entry.schema) } } } : {}),
        };
      }
      const errors = new Set([...(route.errors ?? []), ...(auth ? [401, 429] : [])]);
      for (const status of errors) {
        out[status] = {
          description: ERROR_TEXT[status] ?? "error",
          content: { "application/json": { schema: jsonSchema(ErrorBodySchema) } },
        };
      }
      return out;
    },
  });
  return detail;
}
