import { afterEach, expect, test } from "bun:test";
import { startFakeSlack, type FakeSlack } from "../fakes/slack-server.ts";
import { channelHarness, type ChannelHarness } from "../channels/harness.ts";
import { png } from "./samples.ts";

let slack: FakeSlack;
let h: ChannelHarness;

afterEach(async () => {
  await h.close();
  await slack.stop();
});

test("a Slack image file shared in a DM reaches the model with its text, downloaded with the bot token", async () => {
  slack = startFakeSlack();
  h = channelHarness(`[channels.slack]\ntoken_env = "SLACK_BOT"\napp_token_env = "SLACK_APP"\napi_base_url = "${slack.url}"\ndm_policy = "open"\n`);
  await h.start("slack", { SLACK_BOT: slack.botToken, SLACK_APP: slack.appToken });
  const image = png(640, 480, 900);
  slack.message({ channel: "D1", user: "U1", text: "what is this", subtype: "file_share", files: [slack.file(image, "photo.png", "image/png")] });
  const [post] = await slack.waitForPosts(1, 20_000);
  expect(post!.text).toBe("echo: what is this");
  expect(h.provider.chatRequests().at(-1)!.body.messages.at(-1).content).toEqual([
    { type: "text", text: "what is this" },
    { type: "image_url", image_url: { url: `data:image/png;base64,${Buffer.from(image).toString("base64")}` } },
  ]);
}, 30_000);
