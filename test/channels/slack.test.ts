import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { hmacHex } from "../../src/channels/signature.ts";
import { startFakeSlack, type FakeSlack } from "../fakes/slack-server.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";
import { waitFor } from "../helpers/wait.ts";

let slack: FakeSlack;
let h: ChannelHarness;
const env = () => ({ SLACK_BOT: slack.botToken, SLACK_APP: slack.appToken, SLACK_SIGN: "signing-secret" });

function table(extra = ""): string {
  return `[channels.slack]\ntoken_env = "SLACK_BOT"\napp_token_env = "SLACK_APP"\nsecret_env = "SLACK_SIGN"\napi_base_url = "${slack.url}"\ndm_policy = "open"\n${extra}\n`;
}

beforeEach(() => {
  slack = startFakeSlack();
});
afterEach(async () => {
  await h.close();
  await slack.stop();
});

describe("slack channel (Socket Mode)", () => {
  test("a DM event is acknowledged and answered with chat.postMessage", async () => {
    h = channelHarness(table());
    await h.start("slack", env());
    const envelope = slack.message({ channel: "D1", user: "U1", text: "hello slack" });
    const [post] = await slack.waitForPosts(1);
    expect(post).toMatchObject({ channel: "D1", text: "echo: hello slack" });
    expect(slack.acks).toContain(envelope);
  });

  test("in a channel the bot answers mentions only, in the message's thread", async () => {
    h = channelHarness(table());
    const running = await h.start("slack", env());
    slack.message({ channel: "C1", channel_type: "channel", user: "U1", text: "just talking", ts: "100.1" });
    slack.message({ channel: "C1", channel_type: "channel", user: "U1", text: `<@${slack.botUserId}> help`, ts: "100.2" });
    const [post] = await slack.waitForPosts(1);
    await running.runner.idle();
    expect(slack.posts).toHaveLength(1);
    expect(post).toMatchObject({ channel: "C1", thread_ts: "100.2", text: `echo: <@${slack.botUserId}> help` });
  });

  test("a disconnect frame and a dropped socket reconnect; an envelope not acknowledged is redelivered and answered once", async () => {
    h = channelHarness(table());
    const running = await h.start("slack", env());
    slack.disconnect();
    await waitFor(() => slack.connections >= 2, "the reconnect after disconnect");
    slack.drop();
    slack.message({ channel: "D2", user: "U2", text: "while reconnecting", ts: "200.1" });
    await waitFor(() => slack.connections >= 3, "the reconnect after the drop", 15_000);
    await slack.waitForPosts(1);
    await running.runner.idle();
    await Bun.sleep(200);
    expect(slack.posts.map((p) => p.text)).toEqual(["echo: while reconnecting"]);
  }, 30_000);

  test("bot messages and edits are ignored; chat.postMessage 429 is retried after Retry-After", async () => {
    h = channelHarness(table());
    const running = await h.start("slack", env());
    slack.fail("chat.postMessage", { status: 429, retryAfter: 1 });
    slack.message({ channel: "D3", user: "U9", bot_id: "B9", text: "beep" });
    slack.message({ channel: "D3", user: "U3", subtype: "message_changed", text: "edited" });
    slack.message({ channel: "D3", user: "U3", text: "real" });
    await slack.waitForPosts(1);
    await running.runner.idle();
    expect(slack.posts.map((p) => p.text)).toEqual(["echo: real"]);
  });
});

describe("slack channel (Events API through the gateway)", () => {
  const sign = (body: string, at = Math.floor(Date.now() / 1000), secret = "signing-secret") => ({
    "x-slack-request-timestamp": String(at),
    "x-slack-signature": `v0=${hmacHex(secret, `v0:${at}:${body}`)}`,
  });

  test("url_verification is answered with the challenge; a signed event_callback runs a turn", async () => {
    h = channelHarness(table('mode = "events"'));
    const running = await h.start("slack", env());
    const challenge = JSON.stringify({ token: "t", challenge: "abc123", type: "url_verification" });
    const verified = await running.channel.handleHttp!({ method: "POST", headers: sign(challenge), body: challenge });
    expect(JSON.parse(verified.body)).toEqual({ challenge: "abc123" });
    const event = JSON.stringify({ type: "event_callback", event_id: "Ev1", event: { type: "message", channel: "D5", channel_type: "im", user: "U5", text: "via events", ts: "300.1" } });
    expect((await running.channel.handleHttp!({ method: "POST", headers: sign(event), body: event })).status).toBe(200);
    const [post] = await slack.waitForPosts(1);
    expect(post!.text).toBe("echo: via events");
  });

  test("a bad signature or a stale timestamp is 401 and nothing runs", async () => {
    h = channelHarness(table('mode = "events"'));
    const running = await h.start("slack", env());
    const event = JSON.stringify({ type: "event_callback", event: { type: "message", channel: "D6", channel_type: "im", user: "U6", text: "forged", ts: "400.1" } });
    const forged = await running.channel.handleHttp!({ method: "POST", headers: sign(event, undefined, "not-the-secret"), body: event });
    expect(forged.status).toBe(401);
    const stale = await running.channel.handleHttp!({ method: "POST", headers: sign(event, Math.floor(Date.now() / 1000) - 301), body: event });
    expect(stale.status).toBe(401);
    const unsigned = await running.channel.handleHttp!({ method: "POST", headers: {}, body: event });
    expect(unsigned.status).toBe(401);
    await Bun.sleep(100);
    expect(h.provider.chatRequests()).toHaveLength(0);
    expect(slack.posts).toHaveLength(0);
  });
});
