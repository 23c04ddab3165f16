// `prx plugins test` runs this file with bun test; loadPlugin() starts the plugin's worker in a prx sandbox (the
// runtime's own remote loader, a throw-away workspace). Its actions are tools, as the model sees them.
import { afterAll, expect, test } from "bun:test";
import { loadPlugin } from "@prx/kit/test";

const plugin = await loadPlugin();
afterAll(() => plugin.close());

test("GREET is a tool of the model", () => {
  expect(plugin.tools.map((tool) => tool.name)).toContain("GREET");
});

test("GREET greets with the configured greeting", async () => {
  const result = await plugin.tool("GREET").call({ name: "Ada" });
  expect(result.ok).toBe(true);
  expect(result.output).toContain("Hello, Ada!");
});
