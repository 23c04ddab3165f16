// `prx plugins test` builds the plugin and runs this file with bun test; loadPlugin() loads the component into a
// prx sandbox (the runtime's own loader and hook adapter, host imports backed by a throw-away workspace).
import { afterAll, expect, test } from "bun:test";
import { loadPlugin } from "@prx/kit/test";

const plugin = await loadPlugin();
afterAll(() => plugin.close());

test("counts finished turns and keeps the last session", async () => {
  expect(await plugin.emit("prx.lifecycle.turn_complete", { session_id: "s1" })).toBe(1);
  expect(await plugin.emit("prx.lifecycle.turn_complete", { session_id: "s2" })).toBe(1);
  expect(await plugin.kv.get("turns")).toBe("2");
  expect(await plugin.kv.get("last_session")).toBe("s2");
});

test("events its patterns do not match never reach it", async () => {
  expect(await plugin.emit("prx.lifecycle.agent_start", {})).toBe(0);
});
