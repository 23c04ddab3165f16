import { describe, expect, test } from "bun:test";
import {
  DISCORD_MAX_MESSAGE_CHARS,
  MATRIX_MAX_MESSAGE_CHARS,
  SLACK_MAX_MESSAGE_CHARS,
  TELEGRAM_MAX_MESSAGE_CHARS,
  WEBHOOK_MAX_MESSAGE_CHARS,
} from "../../src/channels/limits.ts";
import { splitMessage } from "../../src/channels/split.ts";

describe("splitMessage", () => {
  for (const [platform, max] of [["telegram", TELEGRAM_MAX_MESSAGE_CHARS], ["discord", DISCORD_MAX_MESSAGE_CHARS], ["slack", SLACK_MAX_MESSAGE_CHARS], ["matrix", MATRIX_MAX_MESSAGE_CHARS], ["webhook", WEBHOOK_MAX_MESSAGE_CHARS]] as const) {
    test(`${platform}: a reply of exactly ${max} characters is one message; one more splits it`, () => {
      const at = "a ".repeat(max / 2 - 1) + "b.";
      expect(at.length).toBe(max);
      expect(splitMessage(at, max)).toEqual([at]);
      const past = at + "c";
      const parts = splitMessage(past, max);
      expect(parts.length).toBe(2);
      for (const part of parts) expect(part.length).toBeLessThanOrEqual(max);
      expect(parts.join(" ").replace(/\s+/g, "")).toBe(past.replace(/\s+/g, ""));
    });
  }

  test("prefers a paragraph boundary, then a sentence boundary, then a word", () => {
    const text = "First paragraph is here.\n\nSecond one follows. It has two sentences.";
    expect(splitMessage(text, 40)).toEqual(["First paragraph is here.", "Second one follows.", "It has two sentences."]);
    const sentences = "One sentence here. Another sentence that is long.";
    expect(splitMessage(sentences, 30)[0]).toBe("One sentence here.");
  });

  test("a code fence cut in two is closed and reopened with its language", () => {
    const code = Array.from({ length: 40 }, (_, i) => `const v${i} = ${i};`).join("\n");
    const text = "Here is code:\n\n```ts\n" + code + "\n```\nDone.";
    const parts = splitMessage(text, 200);
    expect(parts.length).toBeGreaterThan(2);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(200);
      expect((part.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(parts[1]!.startsWith("```ts\n")).toBe(true);
    const lines = parts.join("\n").split("\n").filter((l) => l.startsWith("const "));
    expect(lines).toEqual(code.split("\n"));
  });

  test("a word longer than the limit is cut, never between the halves of a surrogate pair", () => {
    const emoji = "😀".repeat(30);
    const parts = splitMessage(emoji, 17);
    expect(parts.join("")).toBe(emoji);
    for (const part of parts) expect(part).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
  });
});
