import { describe, expect, test } from "bun:test";
import { terminalJson, visible } from "../../src/core/terminal.ts";

describe("visible", () => {
  test("C0 controls, ESC and DEL in caret notation; C1 and bidi characters as <U+XXXX>", () => {
    expect(visible("a\x1b]0;t\x07\x1b[2J\x00\x7f")).toBe("a^[]0;t^G^[[2J^@^?");
    expect(visible("\x9b\x85\u202e\u2066\u200f\u2028")).toBe("<U+009B><U+0085><U+202E><U+2066><U+200F><U+2028>");
  });

  test("one line by default; multiline keeps line feed and tab but never ESC or CR", () => {
    expect(visible("a\nb\tc\r")).toBe("a^Jb^Ic^M");
    expect(visible("a\nb\tc\r\x1b", { multiline: true })).toBe("a\nb\tc^M^[");
  });

  test("printable text, emoji and right-to-left script stay as they are", () => {
    const text = "Grüße — 日本語 😀 مرحبا";
    expect(visible(text)).toBe(text);
  });
});

describe("terminalJson", () => {
  test("the same JSON value, with no raw DEL, C1 or bidi character left", () => {
    const value = { text: "x\x1b\x7f\x9b\u202e\n" };
    const json = terminalJson(value);
    expect(json).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202e]/);
    expect(JSON.parse(json)).toEqual(value);
    expect(JSON.parse(terminalJson(value, 2))).toEqual(value);
  });
});
