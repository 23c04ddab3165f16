// `prx plugins test` builds the plugin and runs this file with bun test; loadPlugin() loads the component into a
// prx sandbox (the runtime's own loader and provider adapter, host imports backed by a throw-away workspace).
import { afterAll, expect, test } from "bun:test";
import { loadPlugin } from "@prx/kit/test";

const plugin = await loadPlugin();
afterAll(() => plugin.close());

test("answers the last user message", async () => {
  const reply = await plugin.chat([
    { role: "user", content: "first" },
    { role: "assistant", content: "ok" },
    { role: "user", content: "stressed" },
  ]);
  expect(reply).toEqual({ text: "(test-model) desserts", toolCalls: [] });
});

test("a conversation without a user message is an error", async () => {
  await expect(plugin.chat([{ role: "system", content: "be nice" }])).rejects.toThrow("no user message to answer");
});
