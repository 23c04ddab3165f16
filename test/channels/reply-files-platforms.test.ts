/**
 * Files a reply links, sent by each platform that takes files, against its fake answering as the platform's upload
 * API is documented (the fakes cite the pages): the file arrives whole, named, in the chat of the message, after
 * the reply's text.
 */
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeDiscord } from "../fakes/discord-server.ts";
import { startFakeMatrix } from "../fakes/matrix-server.ts";
import { startFakeMattermost } from "../fakes/mattermost-server.ts";
import { startFakeSignal } from "../fakes/signal-server.ts";
import { startFakeSlack } from "../fakes/slack-server.ts";
import { startFakeWhatsApp } from "../fakes/whatsapp-server.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";
import { waitFor } from "../helpers/wait.ts";
import { PNG } from "../helpers/tiny-png.ts";

let h: ChannelHarness | undefined;
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const stop of stops.splice(0)) await stop();
});

/** A workspace with chart.png and notes.txt, whose next answer links both. */
function workspace(table: string): ChannelHarness {
  h = channelHarness(table);
  writeFileSync(join(h.dir, "chart.png"), PNG);
  writeFileSync(join(h.dir, "notes.txt"), "some notes\n");
  h.provider.enqueue({ type: "text", text: "Done: ![chart](chart.png), [notes](notes.txt)" });
  return h;
}

test("slack: files.getUploadURLExternal, the bytes to the upload URL, files.completeUploadExternal into the chat", async () => {
  const slack = startFakeSlack();
  stops.push(() => slack.stop());
  const h = workspace(`[channels.slack]\ntoken_env = "SLACK_BOT"\napp_token_env = "SLACK_APP"\napi_base_url = "${slack.url}"\ndm_policy = "open"\n`);
  await h.start("slack", { SLACK_BOT: slack.botToken, SLACK_APP: slack.appToken });
  await waitFor(() => slack.connections > 0, "the socket");
  slack.message({ channel: "C1", user: "U1", text: `<@${slack.botUserId}> chart please`, ts: "100.2" });
  await waitFor(() => slack.shares.length === 2, "both files shared");
  expect(slack.posts).toHaveLength(1);
  expect(slack.shares.map((f) => ({ name: f.name, title: f.title, channel: f.channel_id, thread: f.thread_ts }))).toEqual([
    { name: "chart.png", title: "chart.png", channel: "C1", thread: slack.posts[0]!.thread_ts },
    { name: "notes.txt", title: "notes.txt", channel: "C1", thread: slack.posts[0]!.thread_ts },
  ]);
  expect(slack.shares[0]!.bytes).toEqual(PNG);
});

test("discord: a multipart Create Message per file (payload_json and files[0]), replying to the message", async () => {
  const discord = startFakeDiscord();
  stops.push(() => discord.stop());
  const h = workspace(`[channels.discord]\ntoken_env = "DISCORD_TOKEN"\napi_base_url = "${discord.url}"\ndm_policy = "open"\n`);
  await h.start("discord", { DISCORD_TOKEN: discord.token });
  const id = discord.message({ channelId: "111", authorId: "222", content: "chart please" });
  await waitFor(() => discord.posts.length === 3, "the text and both files");
  expect(discord.posts[0]).toMatchObject({ content: "Done: ![chart](chart.png), [notes](notes.txt)", reply_to: id });
  expect(discord.posts.slice(1).map((p) => ({ channel: p.channel_id, reply: p.reply_to, files: p.files?.map((f) => [f.filename, f.content_type]) }))).toEqual([
    { channel: "111", reply: id, files: [["chart.png", "image/png"]] },
    { channel: "111", reply: id, files: [["notes.txt", "text/plain;charset=utf-8"]] },
  ]);
  expect(discord.posts[1]!.files![0]!.bytes).toEqual(PNG);
});

test("whatsapp: each file uploaded as media, then sent by id: the PNG as an image, the text file as a document", async () => {
  const wa = startFakeWhatsApp();
  stops.push(() => wa.stop());
  const h = workspace(
    `[channels.wa]\nkind = "whatsapp"\ntoken_env = "WA_TOKEN"\nsecret_env = "WA_SECRET"\nverify_token_env = "WA_VERIFY"\n` +
      `phone_number_id = "${wa.phoneNumberId}"\napi_base_url = "${wa.url}"\ndm_policy = "open"\n`,
  );
  const running = await h.start("wa", { WA_TOKEN: wa.token, WA_SECRET: wa.appSecret, WA_VERIFY: wa.verifyToken });
  const inbound = wa.text("15557770001", "chart please");
  const body = wa.notification([inbound]);
  const { createHmac } = await import("node:crypto");
  const signature = `sha256=${createHmac("sha256", wa.appSecret).update(body).digest("hex")}`;
  expect((await running.channel.handleHttp!({ method: "POST", headers: { "x-hub-signature-256": signature }, body })).status).toBe(200);
  await waitFor(() => wa.sent.length === 3, "the text and both files");
  expect(wa.sent.map((s) => ({ type: s.type, to: s.to, context: s.contextId, mime: s.media?.mime, filename: s.media?.filename }))).toEqual([
    { type: "text", to: "15557770001", context: inbound.id as string, mime: undefined, filename: undefined },
    { type: "image", to: "15557770001", context: inbound.id as string, mime: "image/png", filename: undefined },
    { type: "document", to: "15557770001", context: inbound.id as string, mime: "text/plain", filename: "notes.txt" },
  ]);
  expect(wa.sent[1]!.media!.bytes).toEqual(PNG);
});

test("signal: send with each file as a data URI attachment, to the sender", async () => {
  const sig = startFakeSignal();
  stops.push(() => sig.stop());
  const h = workspace(`[channels.signal]\napi_base_url = "${sig.url}"\naccount = "${sig.account}"\ndm_policy = "open"\n`);
  await h.start("signal", {});
  await waitFor(() => sig.connections.length > 0, "the event stream");
  sig.message({ source: "+15550000001", text: "chart please" });
  await waitFor(() => sig.sends.length === 3, "the text and both files");
  expect(sig.sends.map((s) => ({ to: s.recipient, files: s.attachments?.map((a) => [a.filename, a.mime]) }))).toEqual([
    { to: ["+15550000001"], files: undefined },
    { to: ["+15550000001"], files: [["chart.png", "image/png"]] },
    { to: ["+15550000001"], files: [["notes.txt", "text/plain"]] },
  ]);
  expect(sig.sends[1]!.attachments![0]!.bytes).toEqual(PNG);
});

test("mattermost: each file uploaded with POST /api/v4/files, then a post naming it in file_ids", async () => {
  const mm = startFakeMattermost();
  stops.push(() => mm.stop());
  const h = workspace(`[channels.mattermost]\ntoken_env = "MM_TOKEN"\napi_base_url = "${mm.url}"\ndm_policy = "open"\n`);
  await h.start("mattermost", { MM_TOKEN: mm.token });
  await waitFor(() => mm.connections > 0, "the WebSocket");
  mm.post({ user: "u1", channel: "dm1", type: "D", text: "chart please" });
  await waitFor(() => mm.posts.length === 3, "the text and both files");
  expect(mm.posts.map((p) => ({ channel: p.channel_id, files: p.files?.map((f) => [f.name, f.mime]) }))).toEqual([
    { channel: "dm1", files: undefined },
    { channel: "dm1", files: [["chart.png", "image/png"]] },
    { channel: "dm1", files: [["notes.txt", "text/plain;charset=utf-8"]] },
  ]);
  expect(mm.posts[1]!.files![0]!.bytes).toEqual(PNG);
});

test("matrix: each file to the media repository, then an m.image / m.file event naming its mxc URI", async () => {
  const mx = startFakeMatrix();
  stops.push(() => mx.stop());
  const h = workspace(`[channels.matrix]\ntoken_env = "MX_TOKEN"\napi_base_url = "${mx.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`);
  await h.start("matrix", { MX_TOKEN: mx.token });
  await waitFor(() => mx.syncs.some((s) => s !== null), "a sync with a since token");
  mx.message({ room: "!dm:x", sender: "@u:x", body: "chart please", members: 2 });
  await waitFor(() => mx.sent.length === 3, "the text and both files");
  const files = mx.sent.slice(1).map((s) => s.content);
  expect(files.map((c) => ({ type: c.msgtype, body: c.body, mime: c.info?.mimetype }))).toEqual([
    { type: "m.image", body: "chart.png", mime: "image/png" },
    { type: "m.file", body: "notes.txt", mime: "text/plain" },
  ]);
  expect(mx.uploaded(files[0]!.url!)).toEqual({ bytes: PNG, type: "image/png" });
  expect(mx.sent.every((s) => s.room === "!dm:x")).toBe(true);
});
