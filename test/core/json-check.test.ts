/** The start-path JSON Schema check (core/json-check.ts): each keyword it knows, and a refusal of those it does not. */
import { describe, expect, test } from "bun:test";
import { jsonCheck, type JsonSchema } from "../../src/core/json-check.ts";

const ok = (schema: JsonSchema, value: unknown) => jsonCheck(schema).safeParse(value).success;
const issue = (schema: JsonSchema, value: unknown) => {
  const result = jsonCheck(schema).safeParse(value);
  return result.success ? null : result.error.issues[0];
};

describe("json check", () => {
  test("types: integer is a whole number, number a finite one, object is not an array or null", () => {
    expect(ok({ type: "integer" }, 3)).toBe(true);
    expect(ok({ type: "integer" }, 3.5)).toBe(false);
    expect(ok({ type: "number" }, Number.NaN)).toBe(false);
    expect(ok({ type: "object" }, [])).toBe(false);
    expect(ok({ type: "object" }, null)).toBe(false);
    expect(ok({ type: ["string", "null"] }, null)).toBe(true);
    expect(ok({}, undefined)).toBe(true);
  });

  test("bounds at the limit and one past", () => {
    expect(ok({ type: "integer", minimum: 1, maximum: 3 }, 3)).toBe(true);
    expect(ok({ type: "integer", minimum: 1, maximum: 3 }, 4)).toBe(false);
    expect(ok({ type: "integer", exclusiveMinimum: 1 }, 1)).toBe(false);
    expect(ok({ type: "string", minLength: 1, maxLength: 2 }, "ab")).toBe(true);
    expect(ok({ type: "string", minLength: 1, maxLength: 2 }, "abc")).toBe(false);
    expect(ok({ type: "array", maxItems: 1, items: { type: "string" } }, ["a"])).toBe(true);
    expect(ok({ type: "array", maxItems: 1, items: { type: "string" } }, ["a", "b"])).toBe(false);
    expect(issue({ type: "array", items: { type: "string" } }, ["a", 1])).toEqual({ message: "expected string, got number", path: ["1"] });
  });

  test("objects: required keys, known keys checked, extra keys by additionalProperties", () => {
    const strict: JsonSchema = { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false };
    expect(ok(strict, { a: "x" })).toBe(true);
    expect(issue(strict, {})).toEqual({ message: "required", path: ["a"] });
    expect(issue(strict, { a: "x", b: 1 })).toEqual({ message: 'unknown key "b"', path: [] });
    expect(ok({ ...strict, additionalProperties: {} }, { a: "x", b: 1 })).toBe(true);
    expect(issue({ ...strict, additionalProperties: { type: "number" } }, { a: "x", b: "y" })).toEqual({ message: "expected number, got string", path: ["b"] });
    expect(issue(strict, { a: 1 })).toEqual({ message: "expected string, got number", path: ["a"] });
  });

  test("enum, const, anyOf and oneOf", () => {
    expect(ok({ enum: ["a", "b"] }, "b")).toBe(true);
    expect(ok({ enum: ["a", "b"] }, "c")).toBe(false);
    expect(ok({ const: true }, false)).toBe(false);
    expect(ok({ anyOf: [{ type: "string" }, { type: "integer" }] }, 1)).toBe(true);
    expect(ok({ anyOf: [{ type: "string" }, { type: "integer" }] }, true)).toBe(false);
    expect(ok({ oneOf: [{ type: "integer" }, { type: "number" }] }, 1)).toBe(false);
    expect(ok({ oneOf: [{ type: "integer" }, { type: "string" }] }, 1)).toBe(true);
  });

  test("a keyword it does not know is refused, not ignored", () => {
    expect(() => ok({ type: "string", pattern: "^a" }, "b")).toThrow('JSON Schema keyword "pattern" is not supported');
    // when the check is made, however deep, not when a value first reaches it
    const nested = { type: "object", properties: { a: { anyOf: [{ type: "string", format: "email" }] } } };
    expect(() => jsonCheck(nested)).toThrow('JSON Schema keyword "format" is not supported');
  });
});
