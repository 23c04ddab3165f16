import { afterAll, expect, test } from "bun:test";
import { loadPlugin } from "@prx/kit/test";

const plugin = await loadPlugin();
afterAll(() => plugin.close());

test("recalls by the share of the query's words an entry contains", async () => {
  await plugin.storage.store("tea", "Ada likes oolong tea in the morning");
  await plugin.storage.store("city", "Ada lives in Lisbon");
  await plugin.storage.store("cat", "The cat is called Miso");
  const recalled = await plugin.storage.recall("does Ada like oolong tea?", 5);
  expect(recalled.map((m) => m.key)).toEqual(["tea", "city"]);
  expect(recalled[0]!.score).toBeGreaterThan(recalled[1]!.score!);
});

test("a store replaces the entry and its index", async () => {
  await plugin.storage.store("tea", "Ada switched to green tea");
  expect((await plugin.storage.recall("oolong")).map((m) => m.key)).toEqual([]);
  expect((await plugin.storage.recall("green tea")).map((m) => m.content)).toEqual(["Ada switched to green tea"]);
  expect(await plugin.storage.count()).toBe(3);
});

test("forget removes the entry and its index", async () => {
  expect(await plugin.storage.forget("cat")).toBe(true);
  expect(await plugin.storage.forget("cat")).toBe(false);
  expect(await plugin.storage.recall("miso")).toEqual([]);
  expect(await plugin.kv.keys("w:miso:")).toEqual([]);
});
