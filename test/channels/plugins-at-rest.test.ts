/**
 * A channel process in a workspace with no plugin, hooks or MCP server answers without loading the plugin runtime;
 * a plugin installed while it runs takes part from the next turn on (channelExtensionsNeeded is asked at every turn).
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { channelExtensionsNeeded, channelHostExtensions } from "../../src/boot/channel-host.ts";
import { startChannelProcess } from "../../src/channels/process.ts";
import { openWorkspace } from "../../src/core/workspace.ts";
import { loadConfig } from "../../src/config/loader.ts";
import { pdk, writeGatePlugin } from "../fixtures/gate-middleware.ts";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";

let tg: FakeTelegram;
let h: ChannelHarness;
afterEach(async () => {
  await h.close();
  await tg.stop();
});

test("no plugin: turns run without the plugin runtime; one installed meanwhile blocks the next turn", async () => {
  tg = startFakeTelegram();
  h = channelHarness(`[channels.telegram]\ntoken_env = "TG"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`);
  // as `prx channel run` starts it
  const running = await startChannelProcess({
    name: "telegram",
    workspace: h.dir,
    env: { ...process.env, TG: tg.token },
    extend: channelHostExtensions(),
    extendWhen: channelExtensionsNeeded(),
  });
  h.running.push(running);
  tg.message({ chatId: 1, text: "something forbidden" });
  expect((await tg.waitForSent(1))[0]!.visible).toBe("echo: something forbidden");
  expect(running.host.extensions.state).toBe("idle");
  expect(running.host.plugins).toBeUndefined();

  await writeGatePlugin(join(h.dir, "plugins"), { name: "gate", rules: [{ stage: "inbound", when: "forbidden", reply: { ok: pdk.block("not on this channel") } }] });
  tg.message({ chatId: 1, text: "something forbidden again" });
  expect((await tg.waitForSent(2))[1]!.visible).toBe("not on this channel");
  expect(running.host.extensions.state).toBe("ready");
  expect(running.host.plugins).toBeDefined();
  expect(h.provider.chatRequests()).toHaveLength(1);
}, 60_000);

test("an MCP server or a shared event bus needs the extensions from the first turn", async () => {
  tg = startFakeTelegram();
  h = channelHarness(`[channels.telegram]\ntoken_env = "TG"\napi_base_url = "${tg.url}"\n`);
  const workspace = openWorkspace(h.dir);
  const config = loadConfig(workspace.configPath).config;
  const needed = channelExtensionsNeeded();
  expect(needed({ workspace, config })).toBe(false);
  const server = { command: process.execPath } as (typeof config.mcp.servers)[string];
  expect(needed({ workspace, config: { ...config, mcp: { ...config.mcp, servers: { fs: server } } } })).toBe(true);
  expect(needed({ workspace, config: { ...config, bus: { ...config.bus, backend: "redis" } } })).toBe(true);
});
