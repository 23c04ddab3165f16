import { z } from "zod";
import { withFastAccept } from "../core/fast-accept/index.ts";
import { jsonSchema } from "./json-schema.ts";

/** One problem a schema found, as Standard Schema v1 reports it (zod issues have this shape). */
export interface SchemaIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

export type SchemaResult<T> = { value: T; issues?: undefined } | { value?: undefined; issues: readonly SchemaIssue[] };

/**
 * A route's request schema in the form Elysia takes it (Standard Schema v1): Elysia validates the parsed body with
 * it and types the handler's `body` from it. Its enumerable properties are the JSON Schema zod generates from it
 * (converted on first read): @elysiajs/swagger documents a route's body and query from what they enumerate.
 */
export interface RouteSchema<T> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: "zod";
    validate(value: unknown): SchemaResult<T>;
    readonly types?: { readonly input: unknown; readonly output: T } | undefined;
  };
  /** The schema that validates the route and that its document is generated from. */
  readonly zod: z.ZodType;
}

/** The JSON Schema keywords z.toJSONSchema writes for prx's request formats (objects, arrays, unions, scalars). */
const JSON_SCHEMA_KEYWORDS = [
  "type", "properties", "required", "additionalProperties", "items", "anyOf", "oneOf", "allOf", "enum", "const",
  "nullable", "description", "default", "format", "pattern", "minimum", "maximum", "minLength", "maxLength",
  "minItems", "maxItems",
] as const;

/** Shows `schema`'s JSON Schema as enumerable properties of `target`, generated on first read. */
function withJsonSchemaFace<T extends object>(target: T, schema: z.ZodType): T {
  let json: Record<string, unknown> | undefined;
  for (const keyword of JSON_SCHEMA_KEYWORDS) {
    Object.defineProperty(target, keyword, { enumerable: true, get: () => (json ??= jsonSchema(schema))[keyword] });
  }
  return target;
}

/**
 * `schema` as a route schema. `accept`, when given, is a hand check of the route's common request in front of the
 * schema: it returns the value as the schema would, or null to let the schema decide (and write the errors).
 */
export function routeSchema<S extends z.ZodType>(schema: S, accept?: (value: unknown) => z.output<S> | null): RouteSchema<z.output<S>> {
  const parser = accept ? withFastAccept(schema, accept) : schema;
  const standard: RouteSchema<z.output<S>>["~standard"] = {
    version: 1,
    vendor: "zod",
    validate(value) {
      const result = parser.safeParse(value);
      return result.success ? { value: result.data as z.output<S> } : { issues: result.error.issues };
    },
  };
  // not enumerable: what the API reference copies of a route schema is its JSON Schema alone
  const route = Object.defineProperties({} as RouteSchema<z.output<S>>, {
    "~standard": { value: standard, enumerable: false },
    zod: { value: schema, enumerable: false },
  });
  return withJsonSchemaFace(route, schema);
}

export function isRouteSchema(value: unknown): value is RouteSchema<unknown> {
  return typeof value === "object" && value !== null && "~standard" in value && (value as { zod?: unknown }).zod instanceof z.ZodType;
}

/** `path.to.field: message` for the first few issues ("(body)" for the whole value). */
export function describeSchemaIssues(issues: readonly SchemaIssue[], whole = "(body)"): string {
  return issues
    .slice(0, 3)
    .map((issue) => {
      const path = (issue.path ?? []).map((part) => String(typeof part === "object" ? part.key : part)).join(".");
      return `${path || whole}: ${issue.message}`;
    })
    .join("; ");
}
