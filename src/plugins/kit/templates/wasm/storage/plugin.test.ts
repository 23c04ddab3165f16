// `prx plugins test` builds the plugin and runs this file with bun test; loadPlugin() loads the component into a
// prx sandbox (the runtime's own loader and storage adapter, host imports backed by a throw-away workspace).
import { afterAll, expect, test } from "bun:test";
import { loadPlugin } from "@prx/kit/test";

const plugin = await loadPlugin();
afterAll(() => plugin.close());

test("stores, recalls by relevance, counts and forgets", async () => {
  await plugin.storage.store("tea", "likes oolong tea");
  await plugin.storage.store("city", "lives in Lisbon");
  expect(await plugin.storage.count()).toBe(2);
  const recalled = await plugin.storage.recall("which tea?");
  expect(recalled.map((m) => m.key)).toEqual(["tea"]);
  expect(await plugin.storage.forget("tea")).toBe(true);
  expect(await plugin.storage.count()).toBe(1);
  expect(await plugin.storage.health()).toBe(true);
});
