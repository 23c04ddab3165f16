/**
 * A channel process is a full participant: its turns run through the workspace's plugins (a middleware that blocks
 * answers with its reason and the provider is never called), and the user id middleware sees is the sender's.
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { pdk, writeGatePlugin } from "../fixtures/gate-middleware.ts";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";

let tg: FakeTelegram;
let h: ChannelHarness;
afterEach(async () => {
  await h.close();
  await tg.stop();
});

test("inbound middleware of a workspace plugin blocks a channel turn; the sender gets its reason and nothing else runs", async () => {
  tg = startFakeTelegram();
  h = channelHarness(`[channels.telegram]\ntoken_env = "TG"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`);
  await writeGatePlugin(join(h.dir, "plugins"), {
    name: "gate",
    rules: [
      { stage: "inbound", when: "forbidden", reply: { ok: pdk.block("not on this channel") } },
      { stage: "inbound", when: '"user_id":"4242"', reply: { ok: pdk.block("hello sender 4242") } },
    ],
  });
  await h.start("telegram", { TG: tg.token });
  tg.message({ chatId: 1, fromId: 1, text: "something forbidden" });
  tg.message({ chatId: 4242, text: "who am I?" });
  const sent = await tg.waitForSent(2);
  expect(sent.map((s) => s.visible).sort()).toEqual(["hello sender 4242", "not on this channel"]);
  expect(h.provider.chatRequests()).toHaveLength(0);
}, 30_000);
