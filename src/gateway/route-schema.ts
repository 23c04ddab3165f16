import { z } from "zod";

/** One problem a schema found, as Standard Schema v1 reports it (zod issues have this shape). */
export interface SchemaIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

export type SchemaResult<T> = { value: T; issues?: undefined } | { value?: undefined; issues: readonly SchemaIssue[] };

/**
 * A route's request schema in the form Elysia takes it (Standard Schema v1): Elysia validates the parsed body with
 * it, types the handler's `body` from it, and the OpenAPI document is generated from `zod`.
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

/** `schema` as a route schema. */
export function routeSchema<S extends z.ZodType>(schema: S): RouteSchema<z.output<S>> {
  return {
    "~standard": {
      version: 1,
      vendor: "zod",
      validate(value) {
        const result = schema.safeParse(value);
        return result.success ? { value: result.data } : { issues: result.error.issues };
      },
    },
    zod: schema,
  };
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
