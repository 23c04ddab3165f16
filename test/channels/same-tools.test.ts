/**
 * A channel process opens the same agent host as `prx agent` in the same workspace: built-ins, plugins and the tools
 * of [mcp.servers.*] (here a stdio MCP server named fs), so a tool the model can call from the terminal it can call
 * from a chat too.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { channelHostExtensions } from "../../src/boot/channel-host.ts";
import { startChannelProcess } from "../../src/channels/process.ts";
import { openHost } from "../../src/cli/open-host.ts";
import { channelHarness } from "./harness.ts";

setDefaultTimeout(30_000);

const FIXTURE = join(import.meta.dir, "..", "mcp", "fixtures", "stdio-server.ts");
const h = channelHarness(
  `[channels.hook]\nkind = "webhook"\nsecret_env = "HOOK_SECRET"\n` +
    `[mcp.servers.fs]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FIXTURE)}]\n`,
);
afterAll(() => h.close());

test("a channel process offers the same tools as prx agent, MCP tools included", async () => {
  // as `prx channel run` starts it
  const running = await startChannelProcess({ name: "hook", workspace: h.dir, env: { ...process.env, HOOK_SECRET: "s" }, extend: channelHostExtensions() });
  h.running.push(running);
  const names = () => running.host.tools.specs().map((s) => s.name).sort();
  // a server never read is started once in the background to learn its tools
  const deadline = Date.now() + 20_000;
  while (!names().includes("mcp__fs__echo") && Date.now() < deadline) await Bun.sleep(50);
  expect(names()).toContain("mcp__fs__echo");
  const agent = await openHost(h.dir, { oneShot: true });
  try {
    expect(names()).toEqual(agent.tools.specs().map((s) => s.name).sort());
  } finally {
    await agent.close();
  }
});
