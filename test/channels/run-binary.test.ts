/**
 * `prx channel run` from the compiled binary, in the foreground: it says "running" once the platform is connected and
 * opens its agent host after; a signal at any point of the start stops it cleanly (exit 0), and a host that fails to
 * open after the connection ends it with the error and a non-zero exit.
 */
import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { BINARY, ensureBinary, fakeProviderConfig } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(30_000);

let provider: FakeServer;
let tg: FakeTelegram;
let ws: { dir: string; cleanup(): void } | undefined;
beforeAll(async () => {
  await ensureBinary();
  provider = startFakeOpenAI();
});
afterAll(() => provider.stop());
afterEach(async () => {
  await tg.stop();
  ws?.cleanup();
});

function workspace(): string {
  tg = startFakeTelegram();
  ws = tempWorkspace(fakeProviderConfig(provider.url, `[channels.tg]\nkind = "telegram"\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`));
  return ws.dir;
}

/** Start `prx channel run tg`; `running` resolves with stdout once the running line is out (or with all of it at exit). */
function run(dir: string) {
  const proc = Bun.spawn([BINARY, "channel", "run", "tg", "-w", dir], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, TG_TOKEN: tg.token },
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = new Response(proc.stderr).text();
  const running = (async () => {
    const decoder = new TextDecoder();
    let seen = "";
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
      seen += decoder.decode(chunk, { stream: true });
      if (seen.includes("running")) break;
    }
    return seen;
  })();
  return { proc, running, stderr };
}

test("a SIGTERM right after the running line (the host still opening) stops the process cleanly", async () => {
  const dir = workspace();
  const { proc, running, stderr } = run(dir);
  expect(await running).toContain("prx channel tg running: @prx_test_bot polling");
  proc.kill("SIGTERM");
  expect(await proc.exited).toBe(0);
  const err = await stderr;
  expect(err).toContain("SIGTERM; stopping");
  expect(err).not.toContain("error");
});

test("messages sent before the process started are answered once its host is open, in order", async () => {
  const dir = workspace();
  tg.message({ chatId: 7, text: "one" });
  tg.message({ chatId: 7, text: "two" });
  const { proc, running } = run(dir);
  await running;
  const sent = await tg.waitForSent(2, 20_000);
  expect(sent.map((s) => s.visible)).toEqual(["echo: one", "echo: two"]);
  proc.kill("SIGTERM");
  expect(await proc.exited).toBe(0);
});

test("run alone, the channel applies an edit of config.toml to its agent host: the next message goes to the new provider", async () => {
  const dir = workspace();
  const other = startFakeOpenAI();
  try {
    const { proc, running } = run(dir);
    await running;
    tg.message({ chatId: 7, text: "before" });
    expect((await tg.waitForSent(1, 20_000)).map((s) => s.visible)).toEqual(["echo: before"]);
    const path = join(dir, "config.toml");
    const edited = readFileSync(path, "utf8").replace('default_provider = "fake"', 'default_provider = "other"') + `[providers.other]\nbase_url = "${other.url}"\n`;
    writeFileSync(path, edited);
    // the edit is applied once the watch has read it; messages until then still go to the first provider
    for (let n = 0; other.chatRequests().length === 0; n++) {
      tg.message({ chatId: 7, text: `after ${n}` });
      await tg.waitForSent(n + 2, 20_000);
    }
    expect(other.chatRequests().length).toBe(1);
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
  } finally {
    await other.stop();
  }
});

test("a SIGTERM while the platform does not answer yet stops the process cleanly, before it ever says running", async () => {
  const dir = workspace();
  tg.fail("getMe", { status: 0, description: "", hang: true });
  const { proc, running, stderr } = run(dir);
  while (!tg.calls.some((c) => c.method === "getMe")) await Bun.sleep(5);
  proc.kill("SIGTERM");
  expect(await proc.exited).toBe(0);
  expect(await running).not.toContain("running");
  expect(await stderr).not.toContain("error");
});

test("a host that fails to open after the connection ends the process with its error and exit 1", async () => {
  const dir = workspace();
  // the workspace database cannot be opened: a directory stands where its file goes
  mkdirSync(join(dir, "data", "prx.db"), { recursive: true });
  writeFileSync(join(dir, "data", "prx.db", "keep"), "");
  const { proc, running, stderr } = run(dir);
  expect(await running).toContain("running");
  expect(await proc.exited).toBe(1);
  const err = await stderr;
  expect(err).toMatch(/^error: .*prx\.db/m);
});
