// `prx plugins test` builds the plugin and runs this file with bun test; loadPlugin() loads the component into a
// prx sandbox (the runtime's own loader and cron adapter, host imports backed by a throw-away workspace).
import { afterAll, expect, test } from "bun:test";
import { loadPlugin } from "@prx/kit/test";

const plugin = await loadPlugin();
afterAll(() => plugin.close());

test("each run counts itself", async () => {
  expect(await plugin.runCron()).toBe("run #1");
  expect(await plugin.runCron()).toBe("run #2");
  expect(await plugin.kv.get("runs")).toBe("2");
});
