import { z } from "zod";
import { ErrorBodySchema } from "../errors.ts";
import { jsonSchema } from "../json-schema.ts";

type Schema = z.ZodType;
type ResponseDoc =
  | Schema
  | {
      description: string;
      schema?: Schema;
      contentType?: string;
      /** More media types of the same status (e.g. text/event-stream beside application/json). */
      alternatives?: Record<string, Schema>;
    };

export interface RouteDoc {
  summary: string;
  description?: string;
  tags: string[];
  responses: Record<number, ResponseDoc>;
  /** Statuses answered with the standard error body. */
  errors?: number[];
  /** The error body of this route when it is not the gateway's own (a client wire's, e.g. Anthropic's). */
  errorSchema?: Schema;
  /** Document the token in `x-api-key` as well (every route takes it; the wires whose clients send it say so). */
  apiKey?: boolean;
}

/** The bearer token requirement of every route that is not declared `auth: false` (see middleware/bearer-auth.ts). */
export const BEARER_SECURITY = [{ bearer: [] }];
/** Either the bearer token or the same token in `x-api-key` (middleware/bearer-auth.ts). */
export const API_KEY_SECURITY = [{ bearer: [] }, { apiKey: [] }];

const ERROR_TEXT: Record<number, string> = {
  400: "bad request (malformed JSON, invalid fields)",
  401: "missing, malformed or revoked bearer token",
  403: "forbidden",
  404: "not found",
  409: "conflict",
  413: "body larger than gateway.max_body_bytes",
  415: "content type is not application/json",
  429: "rate limited (see Retry-After)",
  500: "internal error",
  501: "not supported by the configured memory backend",
  502: "provider failed",
  503: "not ready or shutting down",
  529: "not ready or shutting down (Anthropic's overloaded_error)",
};

/**
 * OpenAPI `detail` for a route: summary, tags, security and responses (the request body and query are documented
 * from the route's own schemas). A route declared `auth: false` drops the security requirement (its macro merges
 * `security: undefined` into this detail), and with it the 401 and 429 answers. The JSON Schema conversion runs only
 * when the document is requested (a getter), so building the app stays cheap.
 */
export function doc(route: RouteDoc): Record<string, unknown> {
  const detail: Record<string, unknown> = {
    summary: route.summary,
    tags: route.tags,
    ...(route.description ? { description: route.description } : {}),
    security: route.apiKey ? API_KEY_SECURITY : BEARER_SECURITY,
  };
  Object.defineProperty(detail, "responses", {
    enumerable: true,
    get: () => {
      const out: Record<string, unknown> = {};
      for (const [status, value] of Object.entries(route.responses)) {
        const entry = value instanceof z.ZodType ? { description: value.description ?? "OK", schema: value } : value;
        const type = entry.contentType ?? "application/json";
        const content: Record<string, unknown> = entry.schema ? { [type]: { schema: jsonSchema(entry.schema) } } : {};
        for (const [other, schema] of Object.entries("alternatives" in entry ? (entry.alternatives ?? {}) : {})) {
          content[other] = { schema: jsonSchema(schema) };
        }
        out[status] = { description: entry.description, ...(Object.keys(content).length > 0 ? { content } : {}) };
      }
      const errors = new Set([...(route.errors ?? []), ...(detail.security ? [401, 429] : [])]);
      for (const status of errors) {
        out[status] = {
          description: ERROR_TEXT[status] ?? "error",
          content: { "application/json": { schema: jsonSchema(route.errorSchema ?? ErrorBodySchema) } },
        };
      }
      return out;
    },
  });
  return detail;
}
