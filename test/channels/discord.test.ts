import { afterEach, describe, expect, test } from "bun:test";
import { DISCORD_MAX_MESSAGE_CHARS } from "../../src/channels/limits.ts";
import { startFakeDiscord, type FakeDiscord } from "../fakes/discord-server.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";
import { waitFor } from "../helpers/wait.ts";

let discord: FakeDiscord;
let h: ChannelHarness;

function start(options?: { heartbeatIntervalMs?: number }) {
  discord = startFakeDiscord(options);
  h = channelHarness(`[channels.discord]\ntoken_env = "DISCORD_TOKEN"\napi_base_url = "${discord.url}"\ndm_policy = "open"\n`);
  return h.start("discord", { DISCORD_TOKEN: discord.token });
}

afterEach(async () => {
  await h.close();
  await discord.stop();
});

describe("discord channel", () => {
  test("IDENTIFY with the message-content intent; a DM is answered with typing shown and the reply referencing it", async () => {
    await start();
    await waitFor(() => discord.identifies === 1, "IDENTIFY");
    const MESSAGE_CONTENT = 1 << 15;
    const DIRECT_MESSAGES = 1 << 12;
    expect(discord.lastIdentify!.intents & MESSAGE_CONTENT).toBe(MESSAGE_CONTENT);
    expect(discord.lastIdentify!.intents & DIRECT_MESSAGES).toBe(DIRECT_MESSAGES);
    const id = discord.message({ channelId: "111", authorId: "222", content: "hello discord" });
    const [post] = await discord.waitForPosts(1);
    expect(post).toMatchObject({ channel_id: "111", content: "echo: hello discord", reply_to: id });
    expect(discord.typing).toContain("111");
  });

  test("after a dropped socket the channel RESUMEs with its session and sequence; the missed message is answered once", async () => {
    const running = await start();
    discord.message({ channelId: "1", authorId: "2", content: "before" });
    await discord.waitForPosts(1);
    discord.drop();
    discord.message({ channelId: "1", authorId: "2", content: "missed while down" });
    await discord.waitForPosts(2);
    await running.runner.idle();
    expect(discord.identifies).toBe(1);
    expect(discord.resumes).toHaveLength(1);
    expect(discord.resumes[0]!.session_id).toBe("session-1");
    expect(discord.resumes[0]!.seq).toBeGreaterThanOrEqual(2);
    await Bun.sleep(200);
    expect(discord.posts.map((p) => p.content)).toEqual(["echo: before", "echo: missed while down"]);
  });

  test("a missed heartbeat ACK (zombied connection) reconnects and resumes", async () => {
    await start({ heartbeatIntervalMs: 200 });
    await waitFor(() => discord.heartbeats >= 1, "a heartbeat");
    discord.ackHeartbeats = false;
    await waitFor(() => discord.resumes.length >= 1, "RESUME after a missed ACK");
    discord.ackHeartbeats = true;
    discord.message({ channelId: "5", authorId: "6", content: "still here" });
    const [post] = await discord.waitForPosts(1);
    expect(post!.content).toBe("echo: still here");
  });

  test("op 7 RECONNECT resumes; INVALID_SESSION that cannot be resumed identifies anew", async () => {
    await start();
    await waitFor(() => discord.identifies === 1, "IDENTIFY");
    discord.reconnect();
    await waitFor(() => discord.resumes.length === 1, "RESUME after RECONNECT");
    discord.invalidSession(false);
    await waitFor(() => discord.identifies === 2, "a new IDENTIFY", 15_000);
    discord.message({ channelId: "7", authorId: "8", content: "new session" });
    expect((await discord.waitForPosts(1))[0]!.content).toBe("echo: new session");
  }, 20_000);

  test("guild messages need a mention; bots are ignored; a 429 is retried after retry_after", async () => {
    const running = await start();
    discord.rateLimit(0.3);
    discord.message({ channelId: "9", guildId: "g1", authorId: "3", content: "not for the bot" });
    discord.message({ channelId: "9", guildId: "g1", authorId: "4", content: "beep", bot: true, mentionBot: true });
    discord.message({ channelId: "9", guildId: "g1", authorId: "3", content: "<@bot> hi", mentionBot: true });
    await discord.waitForPosts(1);
    await running.runner.idle();
    expect(discord.posts.map((p) => p.content)).toEqual(["echo: <@bot> hi"]);
  });

  test(`a long reply is split at Discord's ${DISCORD_MAX_MESSAGE_CHARS}-character limit`, async () => {
    await start();
    const long = Array.from({ length: 30 }, (_, i) => `Sentence number ${i} is here to make the reply long enough to split.`).join(" ").repeat(2);
    h.provider.enqueue({ type: "text", text: long });
    discord.message({ channelId: "10", authorId: "11", content: "long please" });
    const posts = await discord.waitForPosts(3);
    for (const p of posts) expect(p.content.length).toBeLessThanOrEqual(DISCORD_MAX_MESSAGE_CHARS);
    expect(posts.map((p) => p.content).join(" ").replace(/\s+/g, " ")).toBe(long.replace(/\s+/g, " "));
  });
});
