// `prx plugins test` builds the plugin and runs this file with bun test; loadPlugin() loads the component into a
// prx sandbox (the runtime's own loader, host imports backed by a throw-away workspace).
import { afterAll, expect, test } from "bun:test";
import { loadPlugin } from "@prx/kit/test";

const plugin = await loadPlugin();
afterAll(() => plugin.close());

test("counts the words and remembers how often it was called", async () => {
  expect(await plugin.tool("__TOOL_NAME__").call({ text: "one two  three" })).toEqual({ ok: true, output: "words: 3", error: null, messages: [] });
  expect(await plugin.kv.get("calls")).toBe("1");
});

test("a bad argument is a failed call the model sees, not a crash", async () => {
  const result = await plugin.tool("__TOOL_NAME__").call({ text: 42 });
  expect(result.ok).toBe(false);
  expect(result.error).toContain("text must be a string");
});
