import { PrxError } from "./errors.ts";

/**
 * A JSON Schema (draft 2020-12) as z.toJSONSchema writes it for the plain wire shapes prx reads: objects (strict or
 * loose), strings, numbers, integers, booleans, arrays, enums, literals and unions. Generated ahead of time from a zod
 * schema, it checks a platform's answer on a start path that must not load zod (zod is ~5 ms of a cold start); the
 * zod schema stays the one definition of the shape and of its type.
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** What a check answers, shaped like zod's safeParse (a caller takes either). */
export type JsonCheckResult<T> = { success: true; data: T } | { success: false; error: { issues: Array<{ message: string; path: string[] }> } };

export interface JsonCheck<T> {
  safeParse(value: unknown): JsonCheckResult<T>;
}

/** A zod schema or a JsonCheck: what reads a wire answer needs of either. */
export interface ShapeCheck<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: ReadonlyArray<{ message: string }> } };
}

/** Keywords that describe and do not constrain. */
const IGNORED = new Set(["$schema", "description", "title", "examples", "default"]);
const KNOWN = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
]);

/**
 * A check of values against `schema`, typed as the zod schema it was generated from. The schema's keywords are
 * checked once, here: one this module does not know throws at once instead of being ignored on every value.
 */
export function jsonCheck<T>(schema: JsonSchema): JsonCheck<T> {
  assertSupported(schema);
  return {
    safeParse(value) {
      const issue = firstIssue(schema, value, []);
      if (issue === null) return { success: true, data: value as T };
      return { success: false, error: { issues: [issue] } };
    },
  };
}

interface Issue {
  message: string;
  path: string[];
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "object":
      return typeOf(value) === "object";
    default:
      return typeOf(value) === type;
  }
}

function schemaAt(schema: JsonSchema, keyword: string): JsonSchema {
  return schema[keyword] as JsonSchema;
}

function assertSupported(schema: JsonSchema | boolean): void {
  if (typeof schema === "boolean") return;
  for (const keyword of Object.keys(schema)) {
    if (!KNOWN.has(keyword) && !IGNORED.has(keyword))
      throw new PrxError("INTERNAL", `JSON Schema keyword "${keyword}" is not supported by the start-path check (core/json-check.ts)`);
  }
  const nested = [
    ...Object.values((schema.properties ?? {}) as Record<string, JsonSchema>),
    ...((schema.anyOf ?? []) as JsonSchema[]),
    ...((schema.oneOf ?? []) as JsonSchema[]),
    ...(schema.items === undefined ? [] : [schema.items as JsonSchema]),
    ...(schema.additionalProperties === undefined ? [] : [schema.additionalProperties as JsonSchema | boolean]),
  ];
  for (const inner of nested) assertSupported(inner);
}

/** The first way `value` fails `schema` (its keywords already checked by jsonCheck), or null when it conforms. */
function firstIssue(schema: JsonSchema | boolean, value: unknown, path: string[]): Issue | null {
  if (schema === true) return null;
  if (schema === false) return { message: "no value is allowed here", path };
  const fail = (message: string): Issue => ({ message, path });
  if (schema.anyOf !== undefined) {
    const options = schema.anyOf as JsonSchema[];
    const issues = options.map((option) => firstIssue(option, value, path));
    if (!issues.includes(null)) return issues[0] ?? fail("matches no option");
  }
  if (schema.oneOf !== undefined) {
    const matches = (schema.oneOf as JsonSchema[]).filter((option) => firstIssue(option, value, path) === null).length;
    if (matches !== 1) return fail(matches === 0 ? "matches no option" : "matches more than one option");
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((type) => hasType(value, type))) return fail(`expected ${types.join(" or ")}, got ${typeOf(value)}`);
  }
  if (schema.const !== undefined && value !== schema.const) return fail(`expected ${JSON.stringify(schema.const)}`);
  if (schema.enum !== undefined && !(schema.enum as unknown[]).includes(value))
    return fail(`expected one of ${(schema.enum as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`);
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) return fail(`expected at least ${schema.minimum}`);
    if (typeof schema.maximum === "number" && value > schema.maximum) return fail(`expected at most ${schema.maximum}`);
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) return fail(`expected more than ${schema.exclusiveMinimum}`);
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) return fail(`expected less than ${schema.exclusiveMaximum}`);
  }
  if (typeof value === "string") {
    if (typeof schema.minLength === "number" && value.length < schema.minLength) return fail(`expected at least ${schema.minLength} characters`);
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength) return fail(`expected at most ${schema.maxLength} characters`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) return fail(`expected at least ${schema.minItems} items`);
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) return fail(`expected at most ${schema.maxItems} items`);
    if (schema.items !== undefined) {
      for (let i = 0; i < value.length; i++) {
        const issue = firstIssue(schemaAt(schema, "items"), value[i], [...path, String(i)]);
        if (issue) return issue;
      }
    }
  }
  if (typeOf(value) === "object") return objectIssue(schema, value as Record<string, unknown>, path);
  return null;
}

function objectIssue(schema: JsonSchema, value: Record<string, unknown>, path: string[]): Issue | null {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const key of (schema.required ?? []) as string[]) {
    if (!(key in value) || value[key] === undefined) return { message: "required", path: [...path, key] };
  }
  for (const [key, item] of Object.entries(value)) {
    const own = properties[key];
    if (own !== undefined) {
      const issue = firstIssue(own, item, [...path, key]);
      if (issue) return issue;
    } else if (schema.additionalProperties === false) {
      return { message: `unknown key "${key}"`, path };
    } else if (schema.additionalProperties !== undefined) {
      const issue = firstIssue(schema.additionalProperties as JsonSchema | boolean, item, [...path, key]);
      if (issue) return issue;
    }
  }
  return null;
}
