import { isRouteSchema } from "../route-schema.ts";
import { jsonSchema } from "./doc.ts";

/** A route as Elysia lists it in `app.routes`. */
export interface DocumentedRoute {
  method: string;
  path: string;
  hooks?: { detail?: unknown; body?: unknown; query?: unknown } | undefined;
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

/** `/api/sessions/:id` -> `/api/sessions/{id}`; a trailing `*` becomes `{path}`. */
export function openApiPath(path: string): string {
  return path
    .split("/")
    .map((part) => (part.startsWith(":") ? `{${part.slice(1)}}` : part === "*" ? "{path}" : part))
    .join("/");
}

function parameters(path: string): unknown[] {
  const names = path.split("/").flatMap((part) => (part.startsWith(":") ? [part.slice(1)] : part === "*" ? ["path"] : []));
  return names.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } }));
}

/** The `parameters` entries of a route's query schema (a zod object), one per property. */
function queryParameters(query: unknown): unknown[] {
  if (!isRouteSchema(query)) return [];
  const schema = jsonSchema(query.zod) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: "query",
    required: schema.required?.includes(name) ?? false,
    schema: property,
  }));
}

/**
 * The OpenAPI 3.0 document of a route table: each route's summary, tags, security and responses from its `detail`
 * (openapi/doc.ts), its request body and query parameters from the same schemas Elysia validates them with.
 * Routes whose detail says `hide: true` are left out.
 */
export function openApiDocument(routes: readonly DocumentedRoute[], info: { title: string; description: string; version: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const detail = (route.hooks?.detail ?? {}) as Record<string, unknown>;
    if (detail.hide === true) continue;
    const methods = route.method === "ALL" ? ["get", "post", "put", "delete", "patch"] : [route.method.toLowerCase()];
    const operation: Record<string, unknown> = { ...detail };
    const params = [...parameters(route.path), ...queryParameters(route.hooks?.query)];
    if (params.length > 0) operation.parameters = params;
    const body = route.hooks?.body;
    if (isRouteSchema(body)) {
      operation.requestBody = { required: true, content: { "application/json": { schema: jsonSchema(body.zod) } } };
    }
    const path = openApiPath(route.path);
    for (const method of methods) {
      if (!METHODS.includes(method)) continue;
      (paths[path] ??= {})[method] = { ...operation, operationId: `${method}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string = "") => c.toUpperCase())}` };
    }
  }
  return {
    openapi: "3.0.3",
    info,
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "token from POST /pair" } },
    },
  };
}
