import { expect, test } from "bun:test";
import { TOOL_LINE_ARGUMENTS_CHARS, toolCallLine } from "../../src/chat/render.ts";

test(`a tool call's line shows its arguments up to ${TOOL_LINE_ARGUMENTS_CHARS} characters, then marks the cut`, () => {
  const at = "a".repeat(TOOL_LINE_ARGUMENTS_CHARS);
  expect(toolCallLine({ name: "shell", arguments: at })).toBe(`shell(${at})`);
  expect(toolCallLine({ name: "shell", arguments: `${at}b` })).toBe(`shell(${at}…)`);
  expect(toolCallLine({ name: "memory_recall", arguments: '{"query":"tea"}' })).toBe('memory_recall({"query":"tea"})');
});
