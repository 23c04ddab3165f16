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

describe("a session's title from a long first message", () => {
  test("spaces collapse across the whole message, as in a short one", () => {
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i}`).join(" \n\t ");
    expect(titleFrom([{ role: "user", content: words }])).toBe(words.replace(/\s+/g, " ").slice(0, SESSION_TITLE_CHARS));
  });

  test("a message that starts with more space than its head holds still gets its words", () => {
    const text = `${"x"}${" ".repeat(SESSION_TITLE_CHARS * 20)}${"y ".repeat(SESSION_TITLE_CHARS)}`;
    expect(titleFrom([{ role: "user", content: text }])).toBe(`x ${"y ".repeat(SESSION_TITLE_CHARS)}`.slice(0, SESSION_TITLE_CHARS));
  });

  test("a message that is all space has no title", () => {
    expect(titleFrom([{ role: "user", content: " \n".repeat(SESSION_TITLE_CHARS * 10) }])).toBe("");
  });
});
