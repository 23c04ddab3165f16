// `prx plugins test` runs this file with bun test; loadPlugin() starts the plugin's worker in a prx sandbox (the
// runtime's own remote loader, a throw-away workspace with its memory).
import { afterAll, expect, test } from "bun:test";
import { loadPlugin } from "@prx/kit/test";

const plugin = await loadPlugin();
afterAll(() => plugin.close());

test("its action is a tool of the model", () => {
  expect(plugin.tools.map((tool) => tool.name)).toContain("REMEMBER_NOTE");
});

test("REMEMBER_NOTE remembers the note and tells the user, with the configured greeting", async () => {
  const result = await plugin.tool("REMEMBER_NOTE").call({ text: "the milk is in the fridge" });
  expect(result).toMatchObject({ ok: true, messages: ["Noted: the milk is in the fridge"] });
  expect(result.output).toMatch(/^remembered note \S+$/);
});
