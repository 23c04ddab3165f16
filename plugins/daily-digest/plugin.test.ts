import { afterAll, expect, test } from "bun:test";
import { loadPlugin } from "@prx/kit/test";

const plugin = await loadPlugin();
afterAll(() => plugin.close());

test("one component serves both capabilities", () => {
  expect(plugin.capabilities).toEqual([
    { type: "cron", name: "digest" },
    { type: "hook", name: "collect" },
  ]);
});

test("the digest sums up what the hook collected, then starts afresh", async () => {
  await plugin.emit("prx.lifecycle.tool_call", { session_id: "a", tool: "notes", success: true });
  await plugin.emit("prx.lifecycle.tool_call", { session_id: "a", tool: "notes", success: true });
  await plugin.emit("prx.lifecycle.turn_complete", { session_id: "a", blocked: false });
  await plugin.emit("prx.lifecycle.turn_complete", { session_id: "b", blocked: true });
  await plugin.emit("prx.lifecycle.error", { session_id: "b", code: "PROVIDER_HTTP" });
  const digest = await plugin.runCron("digest");
  expect(digest).toMatch(/^since \d{4}-\d\d-\d\dT.*: 2 turns in 2 sessions, 2 tool calls \(notes 2\), 1 block, 1 error$/);
  expect(await plugin.runCron("digest")).toMatch(/: 0 turns in 0 sessions, 0 tool calls, 0 blocks, 0 errors$/);
});
