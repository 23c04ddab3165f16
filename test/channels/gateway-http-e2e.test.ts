/**
 * The built gateway forwards /channels/<name>/webhook to the channel processes that receive over HTTP: a signed
 * webhook is answered in the response (no bearer token: the signature authenticates it); a bad signature, and a
 * forged Slack Events API request, are 401 and nothing runs.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { hmacHex, signPrx } from "../../src/channels/signature.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { startFakeSlack, type FakeSlack } from "../fakes/slack-server.ts";
import { ensureBinary, fakeProviderConfig, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(60_000);

let provider: FakeServer;
let slack: FakeSlack;
let gateway: RunningGateway;
let cleanup = () => {};

async function running(): Promise<void> {
  const deadline = Date.now() + 20_000;
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  const token = ((await paired.json()) as { token: string }).token;
  while (Date.now() < deadline) {
    const list = (await (await fetch(`${gateway.url}/api/channels`, { headers: { authorization: `Bearer ${token}` } })).json()) as { channels: Array<{ state: string }> };
    if (list.channels.length === 2 && list.channels.every((c) => c.state === "running")) return;
    await Bun.sleep(50);
  }
  throw new Error("channels did not start");
}

beforeAll(async () => {
  await ensureBinary();
  provider = startFakeOpenAI();
  slack = startFakeSlack();
  const ws = tempWorkspace(
    fakeProviderConfig(
      provider.url,
      `[reliability]\nretries = 0\n[channels.hook]\nkind = "webhook"\nenabled = true\nsecret_env = "HOOK_SECRET"\ndm_policy = "open"\n` +
        `[channels.slack]\nenabled = true\nmode = "events"\ntoken_env = "SLACK_BOT"\nsecret_env = "SLACK_SIGN"\napi_base_url = "${slack.url}"\ndm_policy = "open"\n`,
    ),
  );
  cleanup = ws.cleanup;
  gateway = await startGatewayBinary(ws.dir, { HOOK_SECRET: "hook-secret", SLACK_BOT: slack.botToken, SLACK_SIGN: "slack-secret" });
  await running();
}, 120_000);

afterAll(async () => {
  gateway.proc.kill("SIGTERM");
  await gateway.proc.exited;
  await slack.stop();
  await provider.stop();
  cleanup();
});

test("a signed webhook through the gateway is answered in the response", async () => {
  const body = JSON.stringify({ id: "order-1", sender_id: "shop", text: "new order" });
  const response = await fetch(`${gateway.url}/channels/hook/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", ...signPrx("hook-secret", body, Date.now()) },
    body,
  });
  // the whole answer, so a refusal says why
  expect({ status: response.status, body: await response.json() }).toMatchObject({ status: 200, body: { reply: "echo: new order" } });
});

test("a webhook with a bad signature is 401 and nothing runs", async () => {
  const before = provider.chatRequests().length;
  const body = JSON.stringify({ id: "order-2", sender_id: "shop", text: "forged" });
  const response = await fetch(`${gateway.url}/channels/hook/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", ...signPrx("guessed", body, Date.now()) },
    body,
  });
  expect(response.status).toBe(401);
  expect(provider.chatRequests().length).toBe(before);
});

test("a forged Slack Events API request is 401 and nothing runs; a signed one is answered in the thread", async () => {
  const before = provider.chatRequests().length;
  const event = JSON.stringify({ type: "event_callback", event: { type: "message", channel: "D1", channel_type: "im", user: "U1", text: "hi from slack", ts: "500.1" } });
  const at = String(Math.floor(Date.now() / 1000));
  const forged = await fetch(`${gateway.url}/channels/slack/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-slack-request-timestamp": at, "x-slack-signature": `v0=${hmacHex("wrong", `v0:${at}:${event}`)}` },
    body: event,
  });
  expect(forged.status).toBe(401);
  expect(provider.chatRequests().length).toBe(before);
  const signed = await fetch(`${gateway.url}/channels/slack/webhook`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-slack-request-timestamp": at, "x-slack-signature": `v0=${hmacHex("slack-secret", `v0:${at}:${event}`)}` },
    body: event,
  });
  expect(signed.status).toBe(200);
  const [post] = await slack.waitForPosts(1);
  expect(post!.text).toBe("echo: hi from slack");
});

test("an unknown channel is 404", async () => {
  const response = await fetch(`${gateway.url}/channels/nope/webhook`, { method: "POST", body: "{}" });
  expect(response.status).toBe(404);
});
