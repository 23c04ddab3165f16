/**
 * The built binary: `prx gateway` supervises a Telegram channel process. The fake Telegram delivers updates, the
 * replies arrive (a long one split at the platform's limit); the channel process killed with SIGKILL mid-turn is
 * restarted and answers every update once; a plugin reload through the gateway reaches the channel process; pairing
 * is approved over the API.
 */
import { alive } from "../helpers/process.ts";
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { cpSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { TELEGRAM_MAX_MESSAGE_CHARS } from "../../src/channels/limits.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { ensureBinary, fakeProviderConfig, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { waitFor } from "../helpers/wait.ts";


setDefaultTimeout(60_000);

let provider: FakeServer;
let tg: FakeTelegram;
let gateway: RunningGateway;
let headers: Record<string, string>;
let cleanup = () => {};

interface Info {
  name: string;
  state: string;
  pid: number | null;
  restarts: number;
  plugin_generation: number | null;
  last_inbound: string | null;
}

async function channels(): Promise<Info[]> {
  const response = await fetch(`${gateway.url}/api/channels`, { headers });
  if (response.status !== 200) throw new Error(`GET /api/channels answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { channels: Info[] }).channels;
}

async function telegramInfo(): Promise<Info> {
  return (await channels()).find((c) => c.name === "tg")!;
}

/** `get` until `ok` holds for its answer; a timeout names the last answer and the channel processes' stderr. */
async function waitForAnswer<T>(get: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  let last: T | undefined;
  const held = await waitFor(
    async () => ((last = await get()), ok(last) ? { value: last } : null),
    () => `${what}: ${JSON.stringify(last)}\n${gateway.stderr.text()}`,
    timeoutMs,
  );
  return held.value;
}

beforeAll(async () => {
  await ensureBinary();
  provider = startFakeOpenAI();
  tg = startFakeTelegram();
  const ws = tempWorkspace(
    fakeProviderConfig(
      provider.url,
      // the tests poll /api/channels until a state is reached: no rate limit may answer them instead
      `[reliability]\nretries = 0\n[gateway]\nrate_limit_per_minute = 100000\nrate_limit_per_token_per_minute = 100000\n[channels.tg]\nkind = "telegram"\nenabled = true\ntoken_env = "TG_TOKEN"\n` +
        `api_base_url = "${tg.url}"\npoll_timeout_s = 1\ndm_policy = "pairing"\nallow = ["1001"]\n`,
    ),
  );
  cleanup = ws.cleanup;
  mkdirSync(join(ws.dir, "plugins"), { recursive: true });
  cpSync(resolve(import.meta.dir, "../fixtures/test-wasm/echo-tool"), join(ws.dir, "plugins", "echo-tool"), { recursive: true });
  gateway = await startGatewayBinary(ws.dir, { TG_TOKEN: tg.token, PRX_LOG: "info" });
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  headers = { authorization: `Bearer ${((await paired.json()) as { token: string }).token}`, "content-type": "application/json" };
  await waitForAnswer(telegramInfo, (i) => i.state === "running", "the channel process to run");
}, 120_000);

afterAll(async () => {
  gateway.proc.kill("SIGTERM");
  await gateway.proc.exited;
  await tg.stop();
  await provider.stop();
  cleanup();
});

test("the gateway runs the enabled channel as a child process and an update is answered through a turn", async () => {
  tg.message({ chatId: 1001, text: "hello from telegram" });
  const [reply] = await tg.waitForSent(1);
  expect(reply!.visible).toBe("echo: hello from telegram");
  const info = await waitForAnswer(telegramInfo, (i) => i.last_inbound !== null, "liveness");
  expect(info.pid).toBeGreaterThan(0);
  expect(info.pid).not.toBe(gateway.proc.pid);
  const health = (await (await fetch(`${gateway.url}/health`)).json()) as { checks: Record<string, { ok: boolean; detail: string }> };
  expect(health.checks.channels!.ok).toBe(true);
  expect(health.checks.channels!.detail).toContain("tg: running");
});

test(`a 5,000-character reply is split at Telegram's ${TELEGRAM_MAX_MESSAGE_CHARS}-character limit on a paragraph boundary`, async () => {
  const before = tg.sent.length;
  const paragraphs = Array.from({ length: 10 }, (_, i) => `Paragraph ${i}. ` + "word ".repeat(100).trim() + ".");
  const long = paragraphs.join("\n\n");
  expect(long.length).toBeGreaterThan(5000);
  provider.enqueue({ type: "text", text: long });
  tg.message({ chatId: 1001, text: "write a lot" });
  const parts = (await tg.waitForSent(before + 2)).slice(before);
  await Bun.sleep(300); // a third part would arrive now
  expect(tg.sent.length).toBe(before + 2);
  for (const part of parts) expect(part.visible.length).toBeLessThanOrEqual(TELEGRAM_MAX_MESSAGE_CHARS);
  expect(parts[0]!.visible.endsWith(".")).toBe(true);
  expect(parts.map((p) => p.visible).join("\n\n")).toBe(long);
});

test("a channel process killed mid-turn is restarted; the update is answered once and none is lost", async () => {
  const before = tg.sent.length;
  const { pid } = await telegramInfo();
  provider.enqueue({ type: "text", text: "slow answer", delayMs: 3000 });
  const requests = provider.chatRequests().length;
  tg.message({ chatId: 1001, text: "slow question" });
  await waitFor(() => provider.chatRequests().length > requests, "the turn to reach the provider", 20_000);
  process.kill(pid!, "SIGKILL");
  tg.message({ chatId: 1001, text: "while it was down" });
  const info = await waitForAnswer(telegramInfo, (i) => i.restarts >= 1 && i.state === "running" && i.pid !== pid, "the restart");
  expect(info.pid).not.toBe(pid);
  const sent = await tg.waitForSent(before + 2, 30_000);
  await Bun.sleep(1500); // a duplicate would arrive now
  const texts = tg.sent.slice(before).map((s) => s.visible);
  expect(texts).toEqual(["echo: slow question", "echo: while it was down"]);
  expect(sent.length).toBe(before + 2);
});

/** The line a channel process logs when it reloaded its plugins at the gateway's request, with its generation. */
const FORWARDED_RELOAD = /\[channel\.tg\] plugins reloaded with the gateway: generation (\d+)/;

test("a plugin reload through the gateway reaches the channel process", async () => {
  const before = (await telegramInfo()).plugin_generation;
  expect(before).toBeGreaterThanOrEqual(1);
  const seen = gateway.stderr.mark();
  const reloaded = await fetch(`${gateway.url}/api/plugins/echo-tool/reload`, { method: "POST", headers });
  expect(reloaded.status).toBe(200);
  expect(((await reloaded.json()) as { generation: number }).generation).toBeGreaterThanOrEqual(2);
  // The channel process numbers its own generations (a plugin that joined one process's first build late counts
  // there only): it has reloaded once it logs the reload and reports that generation.
  const generation = Number(FORWARDED_RELOAD.exec(await gateway.stderr.line(FORWARDED_RELOAD, { after: seen }))![1]);
  const info = await waitForAnswer(telegramInfo, (i) => i.plugin_generation === generation, "the channel's plugin generation");
  expect(info.plugin_generation).toBeGreaterThan(before!);
  // the channel's turns use the plugin's tool
  const count = tg.sent.length;
  tg.message({ chatId: 1001, text: 'use tool echo_upper {"text":"loud"}' });
  const sent = await tg.waitForSent(count + 1);
  expect(sent.at(-1)!.visible).toContain("LOUD");
});

test("pairing: an unknown sender gets a code, the owner approves it over the API, then the sender is answered", async () => {
  const count = tg.sent.length;
  const requests = provider.chatRequests().length;
  tg.message({ chatId: 2002, text: "let me in" });
  const sent = await tg.waitForSent(count + 1);
  const code = /Pairing code: ([A-Z0-9]{6})/.exec(sent.at(-1)!.visible)![1]!;
  expect(provider.chatRequests().length).toBe(requests);
  const listed = (await (await fetch(`${gateway.url}/api/channels/pairings`, { headers })).json()) as { pairings: Array<{ code: string | null }> };
  expect(listed.pairings.some((p) => p.code === code)).toBe(true);
  const approved = await fetch(`${gateway.url}/api/channels/pairings/approve`, { method: "POST", headers, body: JSON.stringify({ code }) });
  expect(approved.status).toBe(200);
  tg.message({ chatId: 2002, text: "thanks" });
  const after = await tg.waitForSent(count + 2);
  expect(after.at(-1)!.visible).toBe("echo: thanks");
});

test("POST /api/channels/:name/restart restarts the process", async () => {
  const { pid, restarts } = await telegramInfo();
  const response = await fetch(`${gateway.url}/api/channels/tg/restart`, { method: "POST", headers });
  expect(response.status).toBe(200);
  const info = await waitForAnswer(telegramInfo, (i) => i.state === "running" && i.pid !== pid, "the restart");
  expect(info.restarts).toBe(restarts + 1);
  expect((await fetch(`${gateway.url}/api/channels/nope/restart`, { method: "POST", headers })).status).toBe(404);
});

test("channel processes die with the gateway, even when it is killed with SIGKILL", async () => {
  const { pid } = await telegramInfo();
  gateway.proc.kill("SIGKILL");
  await gateway.proc.exited;
  await waitFor(() => !alive(pid!), "the channel process to exit", 10_000);
  expect(alive(pid!)).toBe(false);
});
