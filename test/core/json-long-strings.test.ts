import { describe, expect, test } from "bun:test";
import { jsonDepthError, MAX_JSON_DEPTH, parseJsonBoundedSlicing, SLICED_STRING_MIN_CHARS } from "../../src/core/json/index.ts";
import { scanJson, type LongStrings } from "../../src/core/json/depth.ts";
import { plainValues } from "../../src/core/json/long-strings.ts";

const parseSliced = (text: string) => parseJsonBoundedSlicing(text, "the document");

/** The strings of `text` that are sliced: long plain values. */
function longPlainStrings(text: string): Array<[number, number]> {
  const long: LongStrings = { minChars: SLICED_STRING_MIN_CHARS, spans: [] };
  scanJson(text, MAX_JSON_DEPTH, long);
  return plainValues(text, long.spans);
}

/** Base64-looking text of `length` characters. */
function base64Of(length: number, seed = 1): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let out = "";
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out += alphabet[x % 64];
  }
  return out;
}

/** What JSON.parse does with `text`: its value, or its error's message. */
function outcome(parse: (text: string) => unknown, text: string): { value: unknown } | { error: string } {
  try {
    return { value: parse(text) };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

const long = base64Of(SLICED_STRING_MIN_CHARS + 10);
const dataUrl = `data:image/png;base64,${long}`;

describe("JSON with long strings taken as slices", () => {
  test("long strings at the limit are sliced, one character shorter are copied", () => {
    const at = JSON.stringify({ a: base64Of(SLICED_STRING_MIN_CHARS) });
    const below = JSON.stringify({ a: base64Of(SLICED_STRING_MIN_CHARS - 1) });
    expect(longPlainStrings(at)).toHaveLength(1);
    expect(longPlainStrings(below)).toHaveLength(0);
    expect(parseSliced(at)).toEqual(JSON.parse(at));
    expect(parseSliced(below)).toEqual(JSON.parse(below));
  });

  test("the value equals JSON.parse's wherever the long strings stand", () => {
    const documents: unknown[] = [
      { model: "m", messages: [{ role: "user", content: [{ type: "text", text: "hi" }, { type: "image_url", image_url: { url: dataUrl } }] }] },
      [dataUrl, long, { deep: [[{ x: long }]] }, "short", 1, null, true],
      { first: long, second: `${long}==`, third: base64Of(SLICED_STRING_MIN_CHARS * 2, 7) },
      { ["__proto__"]: long, constructor: dataUrl },
    ];
    for (const document of documents) {
      const text = JSON.stringify(document);
      expect(longPlainStrings(text).length).toBeGreaterThan(0);
      expect(parseSliced(text)).toEqual(JSON.parse(text));
    }
    const proto = parseSliced(`{"__proto__": "${long}"}`) as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(proto, "__proto__")?.value).toBe(long);
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(parseSliced(JSON.stringify(long))).toBe(long);
    expect(parseSliced(` \n"${long}"\t`)).toBe(long);
  });

  test("keys, strings with escapes, quotes or control characters are left to JSON.parse", () => {
    const texts = [
      `{"${long}": 1}`,
      `{"${long}"\n :\t"${long}"}`,
      JSON.stringify({ a: `${long}\n${long}` }),
      JSON.stringify({ a: `${long}"${long}` }),
      JSON.stringify({ a: `${long}\\${long}` }),
      JSON.stringify({ a: `${long}\u0001` }),
      `{"a": "${long}\t${long}"}`,
    ];
    expect(longPlainStrings(texts[0]!)).toHaveLength(0);
    expect(longPlainStrings(texts[1]!)).toHaveLength(1);
    for (const text of texts.slice(2)) expect(longPlainStrings(text)).toHaveLength(0);
    for (const text of texts) expect(outcome(parseSliced, text)).toEqual(outcome(JSON.parse, text));
    // non-ASCII characters need no escaping: such a string is sliced too
    const accented = JSON.stringify({ a: `é${long}ü` });
    expect(longPlainStrings(accented)).toHaveLength(1);
    expect(parseSliced(accented)).toEqual(JSON.parse(accented));
  });

  test("a key given twice keeps its last value, as JSON.parse does", () => {
    const other = base64Of(SLICED_STRING_MIN_CHARS, 3);
    const text = `{"a": "${long}", "a": "${other}", "b": ["${long}"]}`;
    expect(parseSliced(text)).toEqual({ a: other, b: [long] });
  });

  test("text shaped like a stand-in is an ordinary string", () => {
    const lookalike = "prx-slice-00000000-0000-0000-0000-000000000000-0";
    const text = JSON.stringify({ user: lookalike, data: long });
    expect(parseSliced(text)).toEqual({ user: lookalike, data: long });
  });

  test("too deep is refused before parsing, as the depth check refuses it", () => {
    const deep = `${"[".repeat(MAX_JSON_DEPTH + 1)}"${long}"${"]".repeat(MAX_JSON_DEPTH + 1)}`;
    const within = `${"[".repeat(MAX_JSON_DEPTH)}"${long}"${"]".repeat(MAX_JSON_DEPTH)}`;
    expect(() => parseSliced(deep)).toThrow(jsonDepthError(deep, "the document")!.message);
    expect(parseSliced(within)).toEqual(JSON.parse(within));
  });

  test("malformed text throws JSON.parse's own error: 3,000 cut and spliced documents", () => {
    const base = JSON.stringify({ a: [dataUrl, { b: long }], c: "d\\\"e", f: 1.5 });
    const noise = ['"', "\\", "{", "}", "[", "]", ",", ":", " ", "x", "1", "\u0000", "é"];
    let x = 42;
    const next = (n: number) => {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      return x % n;
    };
    let malformed = 0;
    for (let i = 0; i < 3000; i++) {
      let text = base;
      const edits = 1 + next(3);
      for (let e = 0; e < edits; e++) {
        // near the long strings' ends as often as anywhere else
        const anchors = [0, text.indexOf(long), text.indexOf(long) + long.length, text.lastIndexOf(long) + long.length, text.length];
        const at = Math.min(text.length, Math.max(0, anchors[next(anchors.length)]! + next(9) - 4));
        const kind = next(3);
        if (kind === 0) text = text.slice(0, at);
        else if (kind === 1) text = text.slice(0, at) + noise[next(noise.length)] + text.slice(at);
        else text = text.slice(0, at) + text.slice(at + 1 + next(3));
      }
      const expected = outcome(JSON.parse, text);
      if ("error" in expected) malformed++;
      expect(outcome(parseSliced, text)).toEqual(expected);
    }
    expect(malformed).toBeGreaterThan(1000);
  });
});
