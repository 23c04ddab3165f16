/**
 * The built binary: `prx gateway` supervises a Discord, a Slack (Socket Mode) and a Matrix channel process against
 * the local fakes. Discord: a DM is answered; after a dropped socket the process RESUMEs its session and the message
 * sent meanwhile is answered once. Slack: an event is acknowledged and answered. Matrix: a DM is answered as a reply.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeDiscord, type FakeDiscord } from "../fakes/discord-server.ts";
import { startFakeMatrix, type FakeMatrix } from "../fakes/matrix-server.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { startFakeSlack, type FakeSlack } from "../fakes/slack-server.ts";
import { ensureBinary, fakeProviderConfig, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";
import { waitFor } from "../helpers/wait.ts";


setDefaultTimeout(60_000);

let provider: FakeServer;
let discord: FakeDiscord;
let slack: FakeSlack;
let mx: FakeMatrix;
let gateway: RunningGateway;
let cleanup = () => {};

interface Info {
  name: string;
  state: string;
  pid: number | null;
}

async function channelsRunning(token: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  let last: Info[] = [];
  while (Date.now() < deadline) {
    const response = await fetch(`${gateway.url}/api/channels`, { headers: { authorization: `Bearer ${token}` } });
    last = ((await response.json()) as { channels: Info[] }).channels;
    if (last.length === 3 && last.every((c) => c.state === "running")) return;
    await Bun.sleep(50);
  }
  throw new Error(`channels did not start: ${JSON.stringify(last)}\n${gateway.stderr.text()}`);
}

beforeAll(async () => {
  await ensureBinary();
  provider = startFakeOpenAI();
  discord = startFakeDiscord();
  slack = startFakeSlack();
  mx = startFakeMatrix();
  const ws = tempWorkspace(
    fakeProviderConfig(
      provider.url,
      `[reliability]\nretries = 0\n` +
        `[channels.discord]\nenabled = true\ntoken_env = "DISCORD_TOKEN"\napi_base_url = "${discord.url}"\ndm_policy = "open"\n` +
        `[channels.slack]\nenabled = true\ntoken_env = "SLACK_BOT"\napp_token_env = "SLACK_APP"\napi_base_url = "${slack.url}"\ndm_policy = "open"\n` +
        `[channels.matrix]\nenabled = true\ntoken_env = "MX_TOKEN"\napi_base_url = "${mx.url}"\npoll_timeout_s = 1\ndm_policy = "open"\n`,
    ),
  );
  cleanup = ws.cleanup;
  gateway = await startGatewayBinary(ws.dir, {
    DISCORD_TOKEN: discord.token,
    SLACK_BOT: slack.botToken,
    SLACK_APP: slack.appToken,
    MX_TOKEN: mx.token,
    PRX_LOG: "info",
  });
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  await channelsRunning(((await paired.json()) as { token: string }).token);
}, 120_000);

afterAll(async () => {
  gateway.proc.kill("SIGTERM");
  await gateway.proc.exited;
  await Promise.all([discord.stop(), slack.stop(), mx.stop(), provider.stop()]);
  cleanup();
});

test("Discord: a DM is answered; after a dropped socket the process RESUMEs and the message sent meanwhile is answered once", async () => {
  await waitFor(() => discord.identifies === 1, "IDENTIFY", 20_000);
  const first = discord.message({ channelId: "111", authorId: "222", content: "hello through the binary" });
  const [post] = await discord.waitForPosts(1);
  expect(post).toMatchObject({ channel_id: "111", content: "echo: hello through the binary", reply_to: first });
  discord.drop();
  discord.message({ channelId: "111", authorId: "222", content: "sent while the socket was down" });
  const posts = await discord.waitForPosts(2, 30_000);
  expect(discord.identifies).toBe(1);
  expect(discord.resumes).toHaveLength(1);
  expect(discord.resumes[0]!.session_id).toBe("session-1");
  expect(discord.resumes[0]!.seq).toBeGreaterThanOrEqual(2);
  await Bun.sleep(500); // a second answer to the replayed dispatch would arrive now
  expect(posts.map((p) => p.content)).toEqual(["echo: hello through the binary", "echo: sent while the socket was down"]);
});

test("Slack Socket Mode: an event is acknowledged and answered with chat.postMessage", async () => {
  const envelope = slack.message({ channel: "D1", user: "U1", text: "hello slack binary" });
  const [post] = await slack.waitForPosts(1);
  expect(post).toMatchObject({ channel: "D1", text: "echo: hello slack binary" });
  await waitFor(() => slack.acks.includes(envelope), "the envelope's ack");
  expect(slack.acks).toContain(envelope);
});

test("Matrix: a DM after the first sync is answered as a reply to it", async () => {
  await waitFor(() => mx.syncs.some((s) => s !== null), "a sync with a since token", 20_000);
  const id = mx.message({ room: "!dm:fake.local", sender: "@owner:fake.local", body: "hello matrix binary" });
  const [sent] = await mx.waitForSent(1);
  expect(sent!.room).toBe("!dm:fake.local");
  expect(sent!.content.body).toBe("echo: hello matrix binary");
  expect(sent!.content["m.relates_to"]).toEqual({ "m.in_reply_to": { event_id: id } });
});
