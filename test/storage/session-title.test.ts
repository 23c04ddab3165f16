import { describe, expect, test } from "bun:test";
import { SESSION_TITLE_CHARS } from "../../src/storage/limits.ts";
import { titleFrom } from "../../src/storage/session-history.ts";

describe("a session's title from its first message, at SESSION_TITLE_CHARS", () => {
  test("a first message of the limit's length is the whole title", () => {
    const text = "a".repeat(SESSION_TITLE_CHARS);
    expect(titleFrom([{ role: "user", content: text }])).toBe(text);
  });

  test("one character more is cut to the limit", () => {
    const text = `${"a".repeat(SESSION_TITLE_CHARS)}b`;
    expect(titleFrom([{ role: "user", content: text }])).toBe("a".repeat(SESSION_TITLE_CHARS));
  });
});
