/**
 * The WhatsApp Cloud API channel against the fake Graph API (test/fakes/whatsapp-server.ts), its webhook served by a
 * small bridge standing in for the gateway's /channels/<name>/webhook.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { WHATSAPP_MAX_MESSAGE_CHARS } from "../../src/channels/limits.ts";
import { startFakeWhatsApp, type FakeWhatsApp } from "../fakes/whatsapp-server.ts";
import { waitFor } from "../helpers/wait.ts";
import { channelHarness, webhookBridge, type ChannelHarness } from "./harness.ts";

let wa: FakeWhatsApp;
let h: ChannelHarness;
let bridges: Array<{ stop(force?: boolean): unknown }> = [];

const env = () => ({ WA_TOKEN: wa.token, WA_SECRET: wa.appSecret, WA_VERIFY: wa.verifyToken });
function table(extra = ""): string {
  return (
    `[channels.wa]\nkind = "whatsapp"\ntoken_env = "WA_TOKEN"\nsecret_env = "WA_SECRET"\nverify_token_env = "WA_VERIFY"\n` +
    `phone_number_id = "${wa.phoneNumberId}"\napi_base_url = "${wa.url}"\n${extra}\n`
  );
}


beforeEach(() => {
  wa = startFakeWhatsApp();
});
afterEach(async () => {
  for (const b of bridges.splice(0)) b.stop(true);
  await h.close();
  await wa.stop();
});

test("the verification GET answers hub.challenge for the verify token, 403 (counted) for another", async () => {
  h = channelHarness(table());
  const running = await h.start("wa", env());
  const url = webhookBridge(running, bridges);
  const ok = await wa.verify(url, wa.verifyToken, "1158201444");
  expect({ status: ok.status, body: await ok.text() }).toEqual({ status: 200, body: "1158201444" });
  const wrong = await wa.verify(url, "guess", "1158201444");
  expect(wrong.status).toBe(403);
  expect(running.channel.rejected).toBe(1);
});

test("an unsigned or forged notification is 401, counted, and nothing runs", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("wa", env());
  const url = webhookBridge(running, bridges);
  const body = wa.notification([wa.text("15551234567", "forged")]);
  expect((await wa.deliver(url, body, "missing")).status).toBe(401);
  expect((await wa.deliver(url, body, "forged")).status).toBe(401);
  expect(running.channel.rejected).toBe(2);
  await running.runner.idle();
  expect(h.provider.chatRequests()).toHaveLength(0);
  expect(running.runner.stats.inbound).toBe(0);
});

test("an unknown sender gets a pairing code; once approved the next message is answered, marked read, in reply to it", async () => {
  h = channelHarness(table());
  const running = await h.start("wa", env());
  const url = webhookBridge(running, bridges);
  const first = await wa.deliver(url, wa.notification([wa.text("15551234567", "hello")], { "15551234567": "Ana" }));
  expect(first.status).toBe(200);
  const [notice] = await wa.waitForSent(1);
  expect(notice!.text).toContain("Pairing code:");
  expect(h.provider.chatRequests()).toHaveLength(0);
  const code = /Pairing code: (\S+)/.exec(notice!.text!)![1]!;
  const pairing = await running.host.storage.pairings.approve(code);
  expect(pairing).toMatchObject({ sender_id: "15551234567", display: "Ana" });
  const next = wa.text("15551234567", "now?");
  await wa.deliver(url, wa.notification([next]));
  const [, reply] = await wa.waitForSent(2);
  expect(reply).toMatchObject({ to: "15551234567", type: "text", text: "echo: now?", contextId: next.id });
  await waitFor(() => wa.reads.includes(String(next.id)), "the read receipt");
});

test("statuses are ignored; a redelivered message is answered once, also by the next process", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  let running = await h.start("wa", env());
  let url = webhookBridge(running, bridges);
  const message = wa.text("15550000001", "once");
  const body = wa.notification([message]);
  const statuses = JSON.stringify({
    object: "whatsapp_business_account",
    entry: [{ id: "1", changes: [{ field: "messages", value: { messaging_product: "whatsapp", metadata: { phone_number_id: wa.phoneNumberId }, statuses: [{ id: "wamid.X", status: "delivered", timestamp: "1", recipient_id: "15550000001" }] } }] }],
  });
  expect((await wa.deliver(url, statuses)).status).toBe(200);
  await wa.deliver(url, body);
  await wa.deliver(url, body);
  await wa.waitForSent(1);
  await running.runner.idle();
  await running.stop();
  h.running.splice(0);
  running = await h.start("wa", env());
  url = webhookBridge(running, bridges);
  expect((await wa.deliver(url, body)).status).toBe(200);
  await running.runner.idle();
  expect(wa.sent.map((s) => s.text)).toEqual(["echo: once"]);
  expect(h.provider.chatRequests()).toHaveLength(1);
});

test("a reply longer than 4096 characters is split; a 429 (130429) is retried", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("wa", env());
  const url = webhookBridge(running, bridges);
  h.provider.enqueue({ type: "text", text: "word ".repeat(1500).trim() });
  wa.fail({ status: 429, code: 130429, message: "Rate limit hit" });
  await wa.deliver(url, wa.notification([wa.text("15550000002", "long please")]));
  const parts = await wa.waitForSent(2);
  await running.runner.idle();
  expect(wa.sent).toHaveLength(2);
  expect(parts.every((p) => p.text!.length <= WHATSAPP_MAX_MESSAGE_CHARS)).toBe(true);
  expect(parts.map((p) => p.text).join(" ")).toBe("word ".repeat(1500).trim());
});

test("outside the 24-hour window the configured template is sent; without one the reply fails saying why", async () => {
  const old = Math.floor(wa.now / 1000) - 25 * 3600;
  h = channelHarness(table('dm_policy = "open"\ntemplate = "hello_again"'));
  let running = await h.start("wa", env());
  await wa.deliver(webhookBridge(running, bridges), wa.notification([wa.text("15550000003", "from yesterday", { timestampS: old })]));
  const [sent] = await wa.waitForSent(1);
  expect(sent).toMatchObject({ to: "15550000003", type: "template", template: "hello_again" });
  await running.runner.idle();
  await h.close();

  h = channelHarness(table('dm_policy = "open"'));
  running = await h.start("wa", env());
  await wa.deliver(webhookBridge(running, bridges), wa.notification([wa.text("15550000004", "also old", { timestampS: old })]));
  await waitFor(() => running.runner.stats.failed === 1, "the failed reply");
  expect(wa.sent).toHaveLength(1);
});

test("an image is fetched by media id with the token and reaches the model", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("wa", env());
  const png = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
  const id = wa.media(png, "image/png");
  const message = { ...wa.text("15550000005", ""), type: "image", image: { id, mime_type: "image/png", sha256: "x", caption: "what is this?" } };
  delete (message as Record<string, unknown>).text;
  await wa.deliver(webhookBridge(running, bridges), wa.notification([message]));
  await wa.waitForSent(1);
  const request = JSON.stringify(h.provider.chatRequests()[0]!.body);
  expect(request).toContain("what is this?");
  expect(request).toContain("data:image/png;base64,");
});

test("a reply of exactly 4096 characters is one message; 4097 are two", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("wa", env());
  const url = webhookBridge(running, bridges);
  h.provider.enqueue({ type: "text", text: "a".repeat(WHATSAPP_MAX_MESSAGE_CHARS) });
  await wa.deliver(url, wa.notification([wa.text("15550000006", "at the limit")]));
  await wa.waitForSent(1);
  await running.runner.idle();
  h.provider.enqueue({ type: "text", text: "a".repeat(WHATSAPP_MAX_MESSAGE_CHARS + 1) });
  await wa.deliver(url, wa.notification([wa.text("15550000006", "one past")]));
  await wa.waitForSent(3);
  await running.runner.idle();
  const lengths = wa.sent.map((s) => s.text!.length);
  expect(lengths).toHaveLength(3);
  expect(lengths[0]).toBe(WHATSAPP_MAX_MESSAGE_CHARS);
  expect(lengths[1]! + lengths[2]!).toBe(WHATSAPP_MAX_MESSAGE_CHARS + 1);
  expect(Math.max(lengths[1]!, lengths[2]!)).toBeLessThanOrEqual(WHATSAPP_MAX_MESSAGE_CHARS);
});
