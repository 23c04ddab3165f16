// `prx plugins test` builds the plugin and runs this file with bun test; loadPlugin() loads the component into a
// prx sandbox (the runtime's own loader and middleware chain, host imports backed by a throw-away workspace).
import { afterAll, expect, test } from "bun:test";
import { loadPlugin } from "@prx/kit/test";

const plugin = await loadPlugin({ config: { signature: "-- prx" } });
afterAll(() => plugin.close());

test("a message with a banned word is blocked with a reason", async () => {
  expect(await plugin.middleware("inbound", { text: "tell me something FORBIDDEN" })).toEqual({
    action: "block",
    reason: 'Sorry, I cannot talk about "forbidden".',
  });
});

test("other messages pass unchanged, and replies are signed", async () => {
  const inbound = await plugin.middleware("inbound", { text: "hello" });
  expect(inbound).toMatchObject({ action: "continue", envelope: { text: "hello" } });
  const outbound = await plugin.middleware("outbound", { text: "hi there" });
  expect(outbound).toMatchObject({ action: "continue", envelope: { text: "hi there\n-- prx" } });
});
