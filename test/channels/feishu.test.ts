/**
 * The Feishu / Lark channel against the fake Open Platform (test/fakes/feishu-server.ts), its request URL served by a
 * small bridge standing in for the gateway's /channels/<name>/webhook.
 */
import { afterEach, expect, test } from "bun:test";
import { FEISHU_MAX_MESSAGE_CHARS, FEISHU_TOKEN_RENEW_BEFORE_MS, PLATFORM_REQUEST_TIMEOUT_MS } from "../../src/channels/limits.ts";
import { TenantTokens } from "../../src/channels/feishu/token.ts";
import { decryptLarkEvent } from "../../src/channels/feishu/crypto.ts";
import { normalizeFeishu } from "../../src/channels/feishu/normalize.ts";
import type { FeishuMessageEvent } from "../../src/channels/feishu/wire.ts";
import { sessionIdOf } from "../../src/channels/runner.ts";
import { startFakeFeishu, type FakeFeishu } from "../fakes/feishu-server.ts";
import { waitFor } from "../helpers/wait.ts";
import { channelHarness, webhookBridge, type ChannelHarness } from "./harness.ts";

let fs: FakeFeishu;
let h: ChannelHarness | undefined;
let bridges: Array<{ stop(force?: boolean): unknown }> = [];

const ENCRYPT_KEY = "fake-encrypt-key-0123456789";
const env = () => ({ FS_SECRET: fs.appSecret, FS_VERIFY: fs.verificationToken, ...(fs.encryptKey ? { FS_ENCRYPT: fs.encryptKey } : {}) });
function table(extra = ""): string {
  return (
    `[channels.fs]\nkind = "feishu"\napp_id = "${fs.appId}"\nsecret_env = "FS_SECRET"\nverify_token_env = "FS_VERIFY"\n` +
    `${fs.encryptKey ? 'encrypt_key_env = "FS_ENCRYPT"\n' : ""}api_base_url = "${fs.url}"\n${extra}\n`
  );
}

async function open(extra = "", encryptKey?: string) {
  fs = startFakeFeishu(encryptKey ? { encryptKey } : {});
  h = channelHarness(table(extra));
  const running = await h.start("fs", env());
  return { running, url: webhookBridge(running, bridges) };
}

afterEach(async () => {
  for (const b of bridges.splice(0)) b.stop(true);
  await h?.close();
  h = undefined;
  await fs.stop();
});

test("URL verification answers the challenge for the verification token; another token is 403 and counted", async () => {
  const { running, url } = await open();
  const ok = await fs.verifyUrl(url);
  expect(ok.status).toBe(200);
  expect(((await ok.json()) as { challenge: string }).challenge).toMatch(/^ch-\d+$/);
  expect((await fs.verifyUrl(url, "guessed")).status).toBe(403);
  expect(running.channel.rejected).toBe(1);
});

test("with an Encrypt Key: the encrypted URL verification and a signed encrypted event are read; forged, missing and stale signatures are 401, counted, and nothing runs", async () => {
  const { running, url } = await open('dm_policy = "open"', ENCRYPT_KEY);
  const verified = await fs.verifyUrl(url);
  expect(verified.status).toBe(200);
  const event = fs.message({ from: "ou_ana", text: "secret hello" });
  for (const signing of ["forged", "missing", "stale"] as const) expect((await fs.deliver(url, event, signing)).status).toBe(401);
  expect(running.channel.rejected).toBe(3);
  await running.runner.idle();
  expect(h!.provider.chatRequests()).toHaveLength(0);
  expect((await fs.deliver(url, event)).status).toBe(200);
  const [reply] = await fs.waitForSent(1);
  expect(reply).toMatchObject({ replyTo: (event.event as any).message.message_id, text: "echo: secret hello" });
  // a plain event where the platform would encrypt is not the platform's
  const plain = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(fs.message({ from: "ou_ana", text: "plain" })) });
  expect(plain.status).toBe(401);
  expect(running.channel.rejected).toBe(4);
});

test("the encryption is the documented one: the platform's own example decrypts", () => {
  // the decryption example of https://open.feishu.cn/document/ukTMukTMukTM/uYDNxYjL2QTM24iN0EjN/event-subscription-configure-/encrypt-key-encryption-configuration-case
  expect(decryptLarkEvent("test key", "P37w+VZImNgPEO1RBhJ6RtKl7n6zymIbEG1pReEzghk=")).toBe("hello world");
  expect(decryptLarkEvent("other key", "P37w+VZImNgPEO1RBhJ6RtKl7n6zymIbEG1pReEzghk=")).toBeUndefined();
});

test("an unknown sender's DM gets a pairing code; once approved the next message is answered in reply to it", async () => {
  const { running, url } = await open();
  expect((await fs.deliver(url, fs.message({ from: "ou_ana", text: "hello" }))).status).toBe(200);
  const [notice] = await fs.waitForSent(1);
  expect(notice!.text).toContain("Pairing code:");
  expect(h!.provider.chatRequests()).toHaveLength(0);
  const code = /Pairing code: (\S+)/.exec(notice!.text)![1]!;
  expect(await running.host.storage.pairings.approve(code)).toMatchObject({ sender_id: "ou_ana" });
  const next = fs.message({ from: "ou_ana", text: "now?" });
  await fs.deliver(url, next);
  const [, reply] = await fs.waitForSent(2);
  expect(reply).toMatchObject({ replyTo: (next.event as any).message.message_id, chatId: "oc_dm_ou_ana", text: "echo: now?" });
});

test("in a group only a message that @-mentions the bot (without its placeholder) or replies to it is answered", async () => {
  const { running, url } = await open('dm_policy = "open"');
  await fs.deliver(url, fs.message({ from: "ou_bo", chat: "oc_team", chatType: "group", text: "chatting among ourselves" }));
  await fs.deliver(url, fs.message({ from: "ou_bo", chat: "oc_team", chatType: "group", mentionBot: true, text: "what time is it?" }));
  const [reply] = await fs.waitForSent(1);
  await running.runner.idle();
  expect(reply).toMatchObject({ chatId: "oc_team", text: "echo: what time is it?" });
  expect(fs.sent).toHaveLength(1);
  // a reply to the bot's message addresses it too
  await fs.deliver(url, fs.message({ from: "ou_bo", chat: "oc_team", chatType: "group", text: "and tomorrow?", rootId: reply!.id }));
  const [, second] = await fs.waitForSent(2);
  await running.runner.idle();
  expect(second).toMatchObject({ chatId: "oc_team", text: "echo: and tomorrow?" });
  expect(h!.provider.chatRequests()).toHaveLength(2);
});

test("a message in a topic thread is answered in it, its session the thread's", async () => {
  const { running, url } = await open('dm_policy = "open"');
  const inThread = fs.message({ from: "ou_cy", chat: "oc_topics", chatType: "group", mentionBot: true, text: "in the topic", rootId: "om_root1", threadId: "omt_1" });
  await fs.deliver(url, inThread);
  const [reply] = await fs.waitForSent(1);
  expect(reply!.replyTo).toBe((inThread.event as any).message.message_id);
  await running.runner.idle();
  const sessions = (await running.host.storage.sessions.list(10)).map((s) => s.id);
  expect(sessions).toContain(sessionIdOf(normalizeFeishu("fs", inThread.event as FeishuMessageEvent, fs.botOpenId)!));
  expect(normalizeFeishu("fs", inThread.event as FeishuMessageEvent, fs.botOpenId)).toMatchObject({ threadId: "om_root1", replyTo: "om_root1", mentioned: true });
  // a quote reply outside a topic stays in the chat's conversation
  const quoted = fs.message({ from: "ou_cy", chat: "oc_topics", chatType: "group", text: "re", rootId: "om_root1" });
  expect(normalizeFeishu("fs", quoted.event as FeishuMessageEvent, fs.botOpenId)).toMatchObject({ threadId: null, replyTo: "om_root1", mentioned: false });
});

test("a reply to a message withdrawn meanwhile goes to its chat", async () => {
  const { url } = await open('dm_policy = "open"');
  const event = fs.message({ from: "ou_iv", text: "never mind" });
  fs.withdraw((event.event as any).message.message_id);
  await fs.deliver(url, event);
  const [sent] = await fs.waitForSent(1);
  expect(sent).toMatchObject({ replyTo: null, chatId: "oc_dm_ou_iv", text: "echo: never mind" });
});

test("a redelivered event is answered once, also by the next process", async () => {
  const { url } = await open('dm_policy = "open"');
  const event = fs.message({ from: "ou_di", text: "once" });
  await fs.deliver(url, event);
  await fs.deliver(url, event);
  await fs.waitForSent(1);
  const first = h!.running[0]!;
  await first.runner.idle();
  await first.stop();
  h!.running.splice(0);
  const again = await h!.start("fs", env());
  expect((await fs.deliver(webhookBridge(again, bridges), event)).status).toBe(200);
  await again.runner.idle();
  expect(fs.sent.map((s) => s.text)).toEqual(["echo: once"]);
  expect(h!.provider.chatRequests()).toHaveLength(1);
});

test("a reply of exactly 16,000 characters is one message, 16,001 are two; a rate limit (429, 99991400) is waited out and retried", async () => {
  const { running, url } = await open('dm_policy = "open"');
  h!.provider.enqueue({ type: "text", text: "a".repeat(FEISHU_MAX_MESSAGE_CHARS) });
  fs.fail({ status: 429, code: 99991400, msg: "request trigger frequency limit", resetS: 0 });
  await fs.deliver(url, fs.message({ from: "ou_ed", text: "at the limit" }));
  await fs.waitForSent(1);
  await running.runner.idle();
  h!.provider.enqueue({ type: "text", text: "a".repeat(FEISHU_MAX_MESSAGE_CHARS + 1) });
  await fs.deliver(url, fs.message({ from: "ou_ed", text: "one past" }));
  await fs.waitForSent(3);
  await running.runner.idle();
  const lengths = fs.sent.map((s) => s.text.length);
  expect(lengths).toHaveLength(3);
  expect(lengths[0]).toBe(FEISHU_MAX_MESSAGE_CHARS);
  expect(lengths[1]! + lengths[2]!).toBe(FEISHU_MAX_MESSAGE_CHARS + 1);
});

test("the split bound keeps the worst-case text under the platform's 150 KB body", async () => {
  const { running, url } = await open('dm_policy = "open"');
  // control characters are escaped twice (content is JSON in JSON): the most bytes a character can take
  h!.provider.enqueue({ type: "text", text: "\u0001".repeat(FEISHU_MAX_MESSAGE_CHARS) });
  await fs.deliver(url, fs.message({ from: "ou_fa", text: "worst case" }));
  await fs.waitForSent(1);
  await running.runner.idle();
  expect(running.runner.stats.failed).toBe(0);
});

test("an image reaches the model, fetched as a message resource with the tenant token", async () => {
  const { url } = await open('dm_policy = "open"');
  const png = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
  const event = fs.message({ from: "ou_gi", type: "image", key: "img_v3_abc" });
  fs.resource((event.event as any).message.message_id, "img_v3_abc", png, "image/png");
  await fs.deliver(url, event);
  await fs.waitForSent(1);
  expect(JSON.stringify(h!.provider.chatRequests()[0]!.body)).toContain("data:image/png;base64,");
});

test("a token the platform no longer takes (99991663) is replaced and the reply still arrives", async () => {
  const { running, url } = await open('dm_policy = "open"');
  const before = fs.tokenRequests;
  fs.revokeTokens();
  await fs.deliver(url, fs.message({ from: "ou_hu", text: "still there?" }));
  await fs.waitForSent(1);
  await running.runner.idle();
  expect(fs.tokenRequests).toBe(before + 1);
});

test("the tenant token is kept until shortly before it expires, then fetched again", async () => {
  fs = startFakeFeishu();
  let now = 1_000_000;
  const tokens = new TenantTokens({ base: fs.url, appId: fs.appId, appSecret: fs.appSecret, bounds: () => ({ timeoutMs: PLATFORM_REQUEST_TIMEOUT_MS }), now: () => now });
  const first = await tokens.get();
  now += 7200 * 1000 - FEISHU_TOKEN_RENEW_BEFORE_MS - 1;
  expect(await tokens.get()).toBe(first);
  expect(fs.tokenRequests).toBe(1);
  now += 1;
  expect(await tokens.get()).not.toBe(first);
  expect(fs.tokenRequests).toBe(2);
});

test("a wrong app secret fails the start, saying which keys to check", async () => {
  fs = startFakeFeishu();
  h = channelHarness(table());
  await expect(h.start("fs", { ...env(), FS_SECRET: "wrong" })).rejects.toThrow(/app secret invalid/);
});

test("rich text reads as its title and paragraphs with mentions and images; a file that is neither image nor audio becomes a note", () => {
  fs = startFakeFeishu();
  const post = fs.message({ from: "ou_jo", chat: "oc_g", chatType: "group", text: "" }) as any;
  post.event.message.message_type = "post";
  post.event.message.mentions = [
    { key: "@_user_1", id: { open_id: fs.botOpenId }, name: "prx" },
    { key: "@_user_2", id: { open_id: "ou_kim" }, name: "Kim" },
  ];
  post.event.message.content = JSON.stringify({
    title: "Plan",
    content: [
      [{ tag: "at", user_id: "@_user_1", user_name: "prx" }, { tag: "text", text: " ask " }, { tag: "at", user_id: "@_user_2", user_name: "Kim" }],
      [{ tag: "a", text: "spec", href: "https://example.test/spec" }, { tag: "img", image_key: "img_v3_p" }],
    ],
  });
  const read = normalizeFeishu("fs", post.event as FeishuMessageEvent, fs.botOpenId)!;
  expect(read.text).toBe("Plan\n ask @Kim\nspec (https://example.test/spec)");
  expect(read.mentioned).toBe(true);
  expect(read.attachments).toEqual([{ kind: "image", ref: `image:${post.event.message.message_id}:img_v3_p` }]);
  const pdf = fs.message({ from: "ou_jo", type: "file", key: "file_v3_x", fileName: "report.pdf" });
  expect(normalizeFeishu("fs", pdf.event as FeishuMessageEvent, fs.botOpenId)).toMatchObject({ text: "[a file was sent: report.pdf; only images and audio are read]" });
  const voice = fs.message({ from: "ou_jo", type: "audio", key: "file_v3_v" });
  expect(normalizeFeishu("fs", voice.event as FeishuMessageEvent, fs.botOpenId)!.attachments).toEqual([{ kind: "audio", ref: `file:${(voice.event as any).message.message_id}:file_v3_v` }]);
});
