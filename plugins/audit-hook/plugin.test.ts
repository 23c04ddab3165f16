import { afterAll, expect, test } from "bun:test";
import { loadPlugin } from "@prx/kit/test";

const plugin = await loadPlugin({ config: { keep: "3" } });
afterAll(() => plugin.close());

test("records each lifecycle event with what matters, never the texts", async () => {
  expect(await plugin.emit("prx.lifecycle.agent_start", { session_id: "s1", channel: "cli", text_length: 12, text: "secret plans" })).toBe(1);
  await plugin.emit("prx.lifecycle.tool_call", { session_id: "s1", channel: "cli", tool: "notes", id: "call-1", success: true });
  const keys = await plugin.kv.keys("audit:");
  expect(keys).toHaveLength(2);
  const first = JSON.parse((await plugin.kv.get(keys[0]!))!);
  expect(first).toMatchObject({ seq: 1, event: "agent_start", session: "s1", detail: { channel: "cli", text_length: 12 } });
  expect(JSON.stringify(first)).not.toContain("secret plans");
  expect(await plugin.kv.get("count:tool_call")).toBe("1");
});

test("keeps the last `keep` entries", async () => {
  for (let i = 0; i < 3; i++) await plugin.emit("prx.lifecycle.turn_complete", { session_id: `t${i}`, blocked: false });
  const keys = await plugin.kv.keys("audit:");
  expect(keys).toHaveLength(3);
  expect(JSON.parse((await plugin.kv.get(keys[0]!))!)).toMatchObject({ seq: 3, event: "turn_complete" });
  expect(await plugin.kv.get("count:turn_complete")).toBe("3");
});

test("other topics do not reach it", async () => {
  expect(await plugin.emit("prx.cron.daily-digest", { output: "x" })).toBe(0);
});
