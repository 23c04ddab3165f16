/**
 * A foreground `prx channel run` from the compiled binary says what happens to senders: one stderr line per pairing
 * request (with the command that approves it), pairing let through, failed message, and its stop.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { BINARY, ensureBinary, fakeProviderConfig, runPrx } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(60_000);

let provider: FakeServer;
let tg: FakeTelegram;
let ws: { dir: string; cleanup(): void };
beforeAll(async () => {
  await ensureBinary();
  provider = startFakeOpenAI();
  tg = startFakeTelegram();
  ws = tempWorkspace(fakeProviderConfig(provider.url, `[reliability]\nretries = 0\n[channels.tg]\nkind = "telegram"\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\npoll_timeout_s = 1\n`));
});
afterAll(async () => {
  await tg.stop();
  await provider.stop();
  ws.cleanup();
});

test("pairing request, approval, a failed message and the stop are each one line", async () => {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ws.dir, TG_TOKEN: tg.token };
  const proc = Bun.spawn([BINARY, "channel", "run", "tg", "-w", ws.dir], { env, stdout: "pipe", stderr: "pipe" });
  const lines: string[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      const parts = buffer.split("\n");
      buffer = parts.pop()!;
      lines.push(...parts);
    }
  })();
  const line = async (pattern: RegExp) => {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const found = lines.find((l) => pattern.test(l));
      if (found) return found;
      await Bun.sleep(20);
    }
    throw new Error(`no line matching ${pattern} in:\n${lines.join("\n")}`);
  };

  tg.message({ chatId: 42, fromId: 42, firstName: "Ina", text: "hello" });
  const request = await line(/pairing requested/);
  const code = /prx channel pair approve (\S+)/.exec(request)![1]!;
  expect(request).toBe(`prx channel tg: pairing requested by Ina (42): prx channel pair approve ${code}`);
  const approved = await runPrx(["channel", "pair", "approve", code, "-w", ws.dir], { env: { HOME: ws.dir } });
  expect(approved.code).toBe(0);

  provider.enqueue({ type: "error", status: 400, message: "bad request" });
  tg.message({ chatId: 42, fromId: 42, firstName: "Ina", text: "now?" });
  expect(await line(/pairing of/)).toBe("prx channel tg: pairing of Ina (42) approved: answering from now on");
  expect(await line(/ERROR/)).toContain("failed");
  tg.message({ chatId: 42, fromId: 42, firstName: "Ina", text: "again" });
  await tg.waitForSent(3, 20_000);

  proc.kill("SIGTERM");
  expect(await proc.exited).toBe(0);
  await line(/stopped$/);
  const ours = lines.filter((l) => l.startsWith("prx channel tg: "));
  expect(ours).toEqual([
    `prx channel tg: pairing requested by Ina (42): prx channel pair approve ${code}`,
    "prx channel tg: pairing of Ina (42) approved: answering from now on",
    "prx channel tg: SIGTERM; stopping",
    "prx channel tg: stopped",
  ]);
});
