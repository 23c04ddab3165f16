/** The LINE channel against the fake Messaging API (test/fakes/line-server.ts), its webhook served by a bridge standing in for the gateway. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { LINE_MAX_MESSAGE_CHARS, LINE_REPLY_TOKEN_TTL_MS } from "../../src/channels/limits.ts";
import { LineChannel } from "../../src/channels/line/channel.ts";
import type { InboundMessage } from "../../src/channels/types.ts";
import { ChannelConfigSchema } from "../../src/config/schema.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startFakeLine, type FakeLine } from "../fakes/line-server.ts";
import { waitFor } from "../helpers/wait.ts";
import { channelHarness, webhookBridge, type ChannelHarness } from "./harness.ts";

let line: FakeLine;
let h: ChannelHarness;
const bridges: Array<{ stop(force?: boolean): unknown }> = [];
const table = (extra = "") =>
  `[channels.ln]\nkind = "line"\ntoken_env = "LINE_TOKEN"\nsecret_env = "LINE_SECRET"\napi_base_url = "${line.url}"\ndata_api_url = "${line.url}"\n${extra}\n`;
const env = () => ({ LINE_TOKEN: line.token, LINE_SECRET: line.channelSecret });
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));

beforeEach(() => {
  line = startFakeLine();
});
afterEach(async () => {
  for (const b of bridges.splice(0)) b.stop(true);
  await h.close();
  await line.stop();
});

test("a missing or forged x-line-signature is 401 and counted; the console's empty Verify is 200", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("ln", env());
  const url = webhookBridge(running, bridges);
  expect((await line.deliver(url, [line.event({ from: "U1", text: "unsigned" })], "missing")).status).toBe(401);
  expect((await line.deliver(url, [line.event({ from: "U1", text: "forged" })], "forged")).status).toBe(401);
  expect((await line.deliver(url, [])).status).toBe(200);
  expect(running.channel.rejected).toBe(2);
  await running.runner.idle();
  expect(h.provider.chatRequests()).toHaveLength(0);
});

test("an unknown sender gets a pairing code by reply; once approved the next message is answered with its reply token", async () => {
  h = channelHarness(table());
  const running = await h.start("ln", env());
  const url = webhookBridge(running, bridges);
  line.friends.set("U2", "Eve");
  expect((await line.deliver(url, [line.event({ from: "U2", text: "hello" })])).status).toBe(200);
  const [notice] = await line.waitForSent(1);
  expect(notice).toMatchObject({ api: "reply", to: "U2" });
  const code = /Pairing code: (\S+)/.exec(notice!.text)![1]!;
  expect(await running.host.storage.pairings.approve(code)).toMatchObject({ sender_id: "U2", display: "Eve" });
  await line.deliver(url, [line.event({ from: "U2", text: "now?" })]);
  const [, reply] = await line.waitForSent(2);
  expect(reply).toEqual({ api: "reply", to: "U2", text: "echo: now?" });
  expect(line.loading).toContain("U2");
});

test("in a group only a mention of the bot is answered, without the mention", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("ln", env());
  const url = webhookBridge(running, bridges);
  await line.deliver(url, [line.event({ from: "U3", text: "chatter", group: "Cgroup1" }), line.event({ from: "U3", text: "help", group: "Cgroup1", mention: true })]);
  const [reply] = await line.waitForSent(1);
  await running.runner.idle();
  expect(reply).toEqual({ api: "reply", to: "Cgroup1", text: "echo: help" });
  expect(line.sent).toHaveLength(1);
  // the loading animation is for one-to-one chats only
  expect(line.loading).toEqual([]);
});

test("an expired reply token falls back to push; a reply past 5,000 characters is reply then push", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("ln", env());
  const url = webhookBridge(running, bridges);
  h.provider.script((request) => (JSON.stringify(request.body).includes("expire") ? { type: "text", text: "late", delayMs: 0 } : undefined));
  const event = line.event({ from: "U4", text: "expire" });
  line.expireReplyTokens();
  await line.deliver(url, [event]);
  const [late] = await line.waitForSent(1);
  expect(late).toEqual({ api: "push", to: "U4", text: "late" });
  await running.runner.idle();
  h.provider.script(undefined);
  h.provider.enqueue({ type: "text", text: "a".repeat(LINE_MAX_MESSAGE_CHARS) });
  await line.deliver(url, [line.event({ from: "U4", text: "at the limit" })]);
  await line.waitForSent(2);
  await running.runner.idle();
  h.provider.enqueue({ type: "text", text: "a".repeat(LINE_MAX_MESSAGE_CHARS + 1) });
  await line.deliver(url, [line.event({ from: "U4", text: "one past" })]);
  const sent = await line.waitForSent(4);
  expect(sent.map((s) => [s.api, s.text.length])).toEqual([
    ["push", 4],
    ["reply", LINE_MAX_MESSAGE_CHARS],
    ["reply", expect.any(Number)],
    ["push", expect.any(Number)],
  ]);
  expect(sent[2]!.text.length + sent[3]!.text.length).toBe(LINE_MAX_MESSAGE_CHARS + 1);
});

test("an event delivered twice, then redelivered to the next process, is answered once", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  let running = await h.start("ln", env());
  const event = line.event({ from: "U5", text: "once" });
  await line.deliver(webhookBridge(running, bridges), [event]);
  await line.deliver(webhookBridge(running, bridges), [event]);
  await line.waitForSent(1);
  await running.runner.idle();
  await running.stop();
  h.running.splice(0);
  running = await h.start("ln", env());
  expect((await line.deliver(webhookBridge(running, bridges), [line.redelivered(event)])).status).toBe(200);
  await running.runner.idle();
  await waitFor(() => running.runner.stats.duplicates === 1, "the duplicate");
  expect(line.sent.map((s) => s.text)).toEqual(["echo: once"]);
});

test("an image is fetched from the content API with the token and reaches the model", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("ln", env());
  await line.deliver(webhookBridge(running, bridges), [line.event({ from: "U6", image: PNG })]);
  await line.waitForSent(1);
  expect(JSON.stringify(h.provider.chatRequests()[0]!.body)).toContain("data:image/png;base64,");
});

test("a wrong channel access token fails the start with LINE's answer", async () => {
  h = channelHarness(table());
  await expect(h.start("ln", { LINE_TOKEN: "wrong", LINE_SECRET: line.channelSecret })).rejects.toThrow(/bot info: HTTP 401: Authentication failed/);
});

test("a reply token is used up to its window's end; one millisecond past it the reply is pushed", async () => {
  h = channelHarness("");
  let now = Date.now();
  const config = ChannelConfigSchema.parse({ kind: "line", token_env: "LINE_TOKEN", secret_env: "LINE_SECRET", api_base_url: line.url, data_api_url: line.url });
  const channel = new LineChannel({ name: "ln", config, env: env(), logger: createLogger("test.line"), cursor: { get: () => null, set: () => undefined }, clock: () => now });
  const received: InboundMessage[] = [];
  await channel.start(async (message) => void received.push(message));
  try {
    for (const late of [0, 1]) {
      const body = JSON.stringify({ destination: line.botUserId, events: [line.event({ from: "U7", text: `late by ${late}` })] });
      const signature = createHmac("sha256", line.channelSecret).update(body).digest("base64");
      const at = now;
      expect((await channel.handleHttp({ method: "POST", headers: { "x-line-signature": signature }, body })).status).toBe(200);
      now = at + LINE_REPLY_TOKEN_TTL_MS + late;
      await channel.send({ chatId: "U7", threadId: null, replyTo: received.at(-1)!.id, text: `answer ${late}` });
    }
    expect(line.sent).toEqual([
      { api: "reply", to: "U7", text: "answer 0" },
      { api: "push", to: "U7", text: "answer 1" },
    ]);
  } finally {
    await channel.stop();
  }
});
