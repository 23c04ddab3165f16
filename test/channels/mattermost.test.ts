/** The Mattermost channel against the fake server (test/fakes/mattermost-server.ts). */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { MATTERMOST_MAX_MESSAGE_CHARS } from "../../src/channels/limits.ts";
import { startFakeMattermost, type FakeMattermost } from "../fakes/mattermost-server.ts";
import { waitFor } from "../helpers/wait.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";

let mm: FakeMattermost;
let h: ChannelHarness;
const table = (extra = "") => `[channels.mm]\nkind = "mattermost"\ntoken_env = "MM_TOKEN"\napi_base_url = "${mm.url}"\n${extra}\n`;
const env = () => ({ MM_TOKEN: mm.token });

beforeEach(() => {
  mm = startFakeMattermost();
});
afterEach(async () => {
  await h.close();
  await mm.stop();
});

test("an unknown sender's DM gets a pairing code; once approved the next is answered, typing shown", async () => {
  h = channelHarness(table());
  const running = await h.start("mm", env());
  mm.post({ user: "u1", name: "dana", channel: "dm1", text: "hello" });
  const [notice] = await mm.waitForPosts(1);
  expect(notice).toMatchObject({ channel_id: "dm1", root_id: "" });
  const code = /Pairing code: (\S+)/.exec(notice!.message)![1]!;
  expect(await running.host.storage.pairings.approve(code)).toMatchObject({ sender_id: "u1", display: "dana" });
  mm.post({ user: "u1", name: "dana", channel: "dm1", text: "now?" });
  const [, reply] = await mm.waitForPosts(2);
  expect(reply).toMatchObject({ channel_id: "dm1", message: "echo: now?" });
  expect(mm.typing).toBeGreaterThan(0);
});

test("in a channel only a mention is answered, in the post's thread; bot posts are ignored", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("mm", env());
  mm.post({ user: "u2", channel: "town", type: "O", text: "chatter" });
  mm.post({ user: "u3", channel: "town", type: "O", text: "@prxbot hi", mention: true, fromBot: true });
  const asked = mm.post({ user: "u2", channel: "town", type: "O", text: "@prxbot help", mention: true });
  const [reply] = await mm.waitForPosts(1);
  await running.runner.idle();
  expect(mm.posts).toHaveLength(1);
  expect(reply).toMatchObject({ channel_id: "town", root_id: asked.id, message: "echo: @prxbot help" });
});

test("a dropped socket reconnects and authenticates again; a restarted process answers nothing twice", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  let running = await h.start("mm", env());
  const first = mm.post({ user: "u4", channel: "dm4", text: "one" });
  await mm.waitForPosts(1);
  mm.drop();
  await waitFor(() => running.channel.health().ok && mm.connections >= 2, "the reconnect", 15_000);
  mm.post({ user: "u4", channel: "dm4", text: "two" });
  await mm.waitForPosts(2);
  await running.runner.idle();
  await running.stop();
  h.running.splice(0);
  running = await h.start("mm", env());
  // a post delivered again (the same id) is not answered again
  await running.runner.onMessage({ id: first.id, channel: "mm", chatId: "dm4", chatKind: "dm", threadId: null, senderId: "u4", senderDisplay: "u4", senderIsBot: false, text: "one", replyTo: null, mentioned: false, timestamp: first.create_at });
  await running.runner.idle();
  expect(mm.posts.map((p) => p.message)).toEqual(["echo: one", "echo: two"]);
}, 30_000);

test("a wrong token is refused at start with Mattermost's own words", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  await expect(h.start("mm", { MM_TOKEN: "wrong" })).rejects.toThrow(/HTTP 401: Invalid or expired session/);
});

test("a reply of exactly 16,383 characters is one post (the server's MaxPostSize); one more makes two", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("mm", env());
  h.provider.enqueue({ type: "text", text: "b".repeat(MATTERMOST_MAX_MESSAGE_CHARS) });
  mm.post({ user: "u6", channel: "dm6", text: "at the limit" });
  await mm.waitForPosts(1);
  await running.runner.idle();
  h.provider.enqueue({ type: "text", text: "b".repeat(MATTERMOST_MAX_MESSAGE_CHARS + 1) });
  mm.post({ user: "u6", channel: "dm6", text: "one past" });
  await mm.waitForPosts(3);
  await running.runner.idle();
  const lengths = mm.posts.map((p) => p.message.length);
  expect(lengths).toHaveLength(3);
  expect(lengths[0]).toBe(MATTERMOST_MAX_MESSAGE_CHARS);
  expect(lengths[1]! + lengths[2]!).toBe(MATTERMOST_MAX_MESSAGE_CHARS + 1);
  expect(Math.max(lengths[1]!, lengths[2]!)).toBeLessThanOrEqual(MATTERMOST_MAX_MESSAGE_CHARS);
});
