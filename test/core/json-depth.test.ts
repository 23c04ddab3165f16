/** MAX_JSON_DEPTH: the linear scan that refuses deeply nested JSON before anything parses it. */
import { describe, expect, test } from "bun:test";
import { isPrxError } from "../../src/core/errors.ts";
import {
  assertJsonDepth,
  jsonDepthError,
  jsonDepthViolation,
  MAX_JSON_DEPTH,
  parseJsonBounded,
} from "../../src/core/json/index.ts";

const arrays = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const objects = (depth: number) => '{"a":'.repeat(depth - 1) + "{}" + "}".repeat(depth - 1);

describe(`MAX_JSON_DEPTH = ${MAX_JSON_DEPTH}`, () => {
  test("at the limit passes, one past it fails at the bracket that opens the extra level", () => {
    for (const make of [arrays, objects]) {
      const at = make(MAX_JSON_DEPTH);
      expect(jsonDepthViolation(at)).toBe(-1);
      expect(JSON.stringify(parseJsonBounded(at, "doc"))).toBe(at);
      const past = make(MAX_JSON_DEPTH + 1);
      const offset = past.lastIndexOf(make === arrays ? "[" : "{");
      expect(jsonDepthViolation(past)).toBe(offset);
    }
  });

  test("the error names what, the limit and where; it is LIMIT_EXCEEDED", () => {
    const past = arrays(MAX_JSON_DEPTH + 1);
    const error = jsonDepthError(past, "the request body")!;
    expect(isPrxError(error, "LIMIT_EXCEEDED")).toBe(true);
    expect(error.message).toBe(`the request body: JSON nesting deeper than ${MAX_JSON_DEPTH} levels at character ${MAX_JSON_DEPTH}`);
    expect(error.hint).toContain(`at most ${MAX_JSON_DEPTH}`);
    expect(() => assertJsonDepth(past, "x")).toThrow(`deeper than ${MAX_JSON_DEPTH} levels`);
    expect(() => parseJsonBounded(past, "x")).toThrow(`deeper than ${MAX_JSON_DEPTH} levels`);
    expect(jsonDepthError(arrays(MAX_JSON_DEPTH), "x")).toBeNull();
  });

  test("100,000 nested brackets are refused at the 65th", () => {
    const n = 100_000;
    expect(jsonDepthViolation("[".repeat(n) + "]".repeat(n))).toBe(MAX_JSON_DEPTH);
    expect(jsonDepthViolation("{".repeat(n))).toBe(MAX_JSON_DEPTH);
  });

  test("an explicit limit", () => {
    expect(jsonDepthViolation(arrays(3), 3)).toBe(-1);
    expect(jsonDepthViolation(arrays(4), 3)).toBe(3);
    expect(jsonDepthError(arrays(4), "line", 3)!.message).toContain("deeper than 3 levels");
  });
});

describe("strings", () => {
  test("brackets inside strings do not count", () => {
    const text = JSON.stringify({ a: "[".repeat(1000) + "{".repeat(1000), b: ["]]]}}}"] });
    expect(jsonDepthViolation(text)).toBe(-1);
    // closing brackets in a string do not lower the depth either
    const hidden = `[${'"]]]]",'.repeat(10)}${arrays(MAX_JSON_DEPTH)}]`;
    expect(jsonDepthViolation(hidden)).toBe(hidden.indexOf("[", 1) + MAX_JSON_DEPTH - 1);
  });

  test("escaped quotes and backslashes keep the string open or closed as JSON does", () => {
    // "\"[" is one string: its [ does not count
    const escapedQuote = `[${JSON.stringify('"[[[[')}]`;
    expect(jsonDepthViolation(escapedQuote, 1)).toBe(-1);
    // "\\" ends after the escaped backslash: the [ after it counts
    const escapedBackslash = `[${JSON.stringify("\\")},[]]`;
    expect(jsonDepthViolation(escapedBackslash, 1)).toBe(escapedBackslash.lastIndexOf("["));
    // \u escapes and multi-byte text
    const unicode = JSON.stringify({ k: "\u005b\u007b é 日本 🎉 [" }) + "";
    expect(jsonDepthViolation(unicode, 1)).toBe(-1);
    expect(jsonDepthViolation(`{"é日🎉":[1]}`, 1)).toBe(`{"é日🎉":`.length);
  });

  test("JSON.stringify of every depth from 1 to the limit passes, with strings full of brackets", () => {
    let value: unknown = "][}{\\\"";
    for (let depth = 1; depth <= MAX_JSON_DEPTH; depth++) {
      value = depth % 2 ? [value, "[{"] : { "}]": value };
      expect(jsonDepthViolation(JSON.stringify(value))).toBe(-1);
    }
    expect(jsonDepthViolation(JSON.stringify([value]))).toBeGreaterThan(-1);
  });
});

test("malformed text is left to JSON.parse", () => {
  expect(jsonDepthViolation("]]]]{")).toBe(-1);
  expect(() => parseJsonBounded("{", "x")).toThrow(SyntaxError);
});

describe("the string skip agrees with a character-by-character scan", () => {
  /** The plain scan: in a string a backslash skips the next character and a quote ends it. */
  function reference(text: string, max: number): number {
    let depth = 0;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === "\\") i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === "[" || c === "{") {
        if (++depth > max) return i;
      } else if (c === "]" || c === "}") depth--;
    }
    return -1;
  }

  test("on 20,000 random texts of quotes, backslashes, brackets and letters (malformed ones too)", () => {
    const alphabet = ['"', "\\", "[", "]", "{", "}", "a", ",", ":"];
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
    for (let n = 0; n < 20_000; n++) {
      let text = "";
      const length = 1 + Math.floor(random() * 40);
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
      const max = Math.floor(random() * 4);
      expect([text, jsonDepthViolation(text, max)]).toEqual([text, reference(text, max)]);
    }
  });
});
