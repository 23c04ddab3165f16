/**
 * Through the built binary: the tools a model is offered in a turn of `prx channel run` are those it is offered by
 * `prx agent -m` in the same workspace, the tools of an MCP server included.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { BINARY, ensureBinary, fakeProviderConfig, runPrx } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(60_000);

const FIXTURE = join(import.meta.dir, "..", "mcp", "fixtures", "stdio-server.ts");
let provider: FakeServer;
let tg: FakeTelegram;
let ws: { dir: string; cleanup(): void };
beforeAll(async () => {
  await ensureBinary();
  provider = startFakeOpenAI();
  tg = startFakeTelegram();
  ws = tempWorkspace(
    fakeProviderConfig(
      provider.url,
      `[channels.tg]\nkind = "telegram"\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n` +
        `[mcp.servers.fs]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FIXTURE)}]\n`,
    ),
  );
});
afterAll(async () => {
  await tg.stop();
  await provider.stop();
  ws.cleanup();
});

const toolNames = (body: { tools?: Array<{ function: { name: string } }> }) => (body.tools ?? []).map((t) => t.function.name).sort();

test("a channel turn offers the same tools as prx agent, MCP tools included", async () => {
  const env = { HOME: ws.dir };
  // the servers' tools are listed from what they said last time: ask them once
  expect((await runPrx(["mcp", "list", "-w", ws.dir], { env })).code).toBe(0);
  const agent = await runPrx(["agent", "-m", "hi", "-w", ws.dir], { env });
  expect(agent.code).toBe(0);
  const fromAgent = toolNames(provider.chatRequests().at(-1)!.body);
  expect(fromAgent).toContain("mcp__fs__echo");

  const proc = Bun.spawn([BINARY, "channel", "run", "tg", "-w", ws.dir], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ws.dir, TG_TOKEN: tg.token },
    stdout: "ignore",
    stderr: "pipe",
  });
  try {
    tg.message({ chatId: 5, text: "which tools?" });
    await tg.waitForSent(1, 20_000);
    expect(toolNames(provider.chatRequests().at(-1)!.body)).toEqual(fromAgent);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
});
