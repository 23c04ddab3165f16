import { afterEach, expect, test } from "bun:test";
import { startFakeDiscord, type FakeDiscord } from "../fakes/discord-server.ts";
import { channelHarness, type ChannelHarness } from "../channels/harness.ts";
import { ogg, png } from "./samples.ts";

let discord: FakeDiscord;
let h: ChannelHarness;

afterEach(async () => {
  await h.close();
  await discord.stop();
});

test("a Discord image attachment reaches the model with the message text; a voice message is transcribed", async () => {
  discord = startFakeDiscord();
  h = channelHarness(`[channels.discord]\ntoken_env = "DISCORD_TOKEN"\napi_base_url = "${discord.url}"\ndm_policy = "open"\n`, 'transcription_model = "whisper-1"');
  await h.start("discord", { DISCORD_TOKEN: discord.token });
  const image = png(300, 200, 700);
  discord.message({ channelId: "111", authorId: "222", content: "look at this", attachments: [{ filename: "cat.png", content_type: "image/png", bytes: image }] });
  const [post] = await discord.waitForPosts(1);
  expect(post!.content).toBe("echo: look at this");
  expect(h.provider.chatRequests().at(-1)!.body.messages.at(-1).content).toEqual([
    { type: "text", text: "look at this" },
    { type: "image_url", image_url: { url: `data:image/png;base64,${Buffer.from(image).toString("base64")}` } },
  ]);
  const clip = ogg(1200);
  discord.message({ channelId: "111", authorId: "222", content: "", attachments: [{ filename: "voice-message.ogg", content_type: "audio/ogg", bytes: clip, duration_secs: 2 }] });
  const posts = await discord.waitForPosts(2);
  expect(posts[1]!.content).toBe(`echo: [voice note transcript]\nfake transcript of ${clip.length} bytes of audio.ogg`);
});
