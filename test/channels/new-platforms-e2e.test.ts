/**
 * WhatsApp, Signal, Mattermost and Teams channels as supervised processes of the built gateway, each against its
 * platform's fake: an unknown sender's DM gets a pairing code, the approval lets the next message through and its
 * reply arrives, a forged or missing signature is refused and counted, and a restarted process does not answer a
 * redelivered message twice.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { startFakeMattermost, type FakeMattermost } from "../fakes/mattermost-server.ts";
import { startFakeSignal, type FakeSignal } from "../fakes/signal-server.ts";
import { startFakeTeams, type FakeTeams } from "../fakes/teams-server.ts";
import { startFakeWhatsApp, type FakeWhatsApp } from "../fakes/whatsapp-server.ts";
import { ensureBinary, fakeProviderConfig, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { gatewayChannels } from "../helpers/gateway-channels.ts";
import { waitFor } from "../helpers/wait.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

/** Wait until `probe` answers something other than false, null or undefined. */
const until = <T>(what: string, probe: () => Promise<T>) => waitFor(probe, what);

setDefaultTimeout(60_000);

let provider: FakeServer;
let wa: FakeWhatsApp;
let sig: FakeSignal;
let mm: FakeMattermost;
let ms: FakeTeams;
let gateway: RunningGateway;
let token = "";
let cleanup = () => {};
const NAMES = ["wa", "sig", "mm", "ms"];

const { api, channel, running, restart, approve } = gatewayChannels(() => ({ url: gateway.url, token }));

beforeAll(async () => {
  await ensureBinary();
  provider = startFakeOpenAI();
  wa = startFakeWhatsApp();
  sig = startFakeSignal();
  mm = startFakeMattermost();
  ms = await startFakeTeams();
  const ws = tempWorkspace(
    fakeProviderConfig(
      provider.url,
      `[reliability]\nretries = 0\n` +
        `[channels.wa]\nkind = "whatsapp"\nenabled = true\ntoken_env = "WA_TOKEN"\nsecret_env = "WA_SECRET"\nverify_token_env = "WA_VERIFY"\n` +
        `phone_number_id = "${wa.phoneNumberId}"\napi_base_url = "${wa.url}"\n` +
        `[channels.sig]\nkind = "signal"\nenabled = true\napi_base_url = "${sig.url}"\naccount = "${sig.account}"\n` +
        `[channels.mm]\nkind = "mattermost"\nenabled = true\ntoken_env = "MM_TOKEN"\napi_base_url = "${mm.url}"\n` +
        `[channels.ms]\nkind = "teams"\nenabled = true\napp_id = "${ms.appId}"\nsecret_env = "TEAMS_PW"\n` +
        `openid_url = "${ms.url}/v1/.well-known/openidconfiguration"\ntoken_url = "${ms.url}/botframework.com/oauth2/v2.0/token"\n`,
    ),
  );
  cleanup = ws.cleanup;
  gateway = await startGatewayBinary(ws.dir, { WA_TOKEN: wa.token, WA_SECRET: wa.appSecret, WA_VERIFY: wa.verifyToken, MM_TOKEN: mm.token, TEAMS_PW: ms.password });
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  token = ((await paired.json()) as { token: string }).token;
  for (const name of NAMES) await running(name);
}, 120_000);

afterAll(async () => {
  gateway.proc.kill("SIGTERM");
  await gateway.proc.exited;
  await wa.stop();
  await sig.stop();
  await mm.stop();
  await ms.stop();
  await provider.stop();
  cleanup();
});

test("whatsapp: verification, refused forgeries, pairing, approval, reply, and no second answer after a restart", async () => {
  const hook = `${gateway.url}/channels/wa/webhook`;
  const verified = await wa.verify(hook, wa.verifyToken, "challenge-42");
  expect({ status: verified.status, body: await verified.text() }).toEqual({ status: 200, body: "challenge-42" });

  const forged = wa.notification([wa.text("15557770001", "forged")]);
  expect((await wa.deliver(hook, forged, "forged")).status).toBe(401);
  expect((await wa.deliver(hook, forged, "missing")).status).toBe(401);
  await until("the refusals counted", async () => (await channel("wa")).stats.rejected === 2);

  expect((await wa.deliver(hook, wa.notification([wa.text("15557770001", "hi")], { "15557770001": "Bo" }))).status).toBe(200);
  const [notice] = await wa.waitForSent(1, 20_000);
  const code = /Pairing code: (\S+)/.exec(notice!.text!)![1]!;
  expect(provider.chatRequests()).toHaveLength(0);
  const approved = await api("/api/channels/pairings/approve", { method: "POST", body: JSON.stringify({ code }) });
  expect(approved).toMatchObject({ channel: "wa", sender_id: "15557770001", state: "approved" });

  const next = wa.notification([wa.text("15557770001", "let me in")]);
  expect((await wa.deliver(hook, next)).status).toBe(200);
  const [, reply] = await wa.waitForSent(2, 20_000);
  expect(reply).toMatchObject({ to: "15557770001", text: "echo: let me in" });

  await restart("wa");
  // Meta redelivers a notification it did not see acknowledged: the new process answers it 200 and not again
  await until("the redelivery accepted", async () => (await wa.deliver(hook, next)).status === 200);
  await Bun.sleep(300);
  expect(wa.sent.map((s) => s.text)).toEqual([notice!.text, "echo: let me in"]);
});

test("signal: pairing, approval, reply; a message sent while the process restarts is answered once", async () => {
  // the stream is open once the process is running: a fresh client is sent no earlier events
  await until("the event stream", async () => sig.connections.length > 0);
  sig.message({ source: "+15552220001", name: "Flo", text: "hi" });
  const [notice] = await sig.waitForSends(1, 20_000);
  await approve(notice!.message, "sig", "+15552220001");
  sig.message({ source: "+15552220001", text: "let me in" });
  const [, reply] = await sig.waitForSends(2, 20_000);
  expect(reply).toMatchObject({ recipient: ["+15552220001"], message: "echo: let me in" });
  const streams = sig.connections.length;
  await api("/api/channels/sig/restart", { method: "POST" });
  sig.message({ source: "+15552220001", text: "during the restart" });
  await until("the new process's stream", async () => sig.connections.length > streams);
  const sends = await sig.waitForSends(3, 20_000);
  expect(sends[2]!.message).toBe("echo: during the restart");
  await Bun.sleep(300);
  expect(sig.sends).toHaveLength(3);
});

test("mattermost: pairing, approval, reply in the DM; after a restart nothing is answered twice", async () => {
  mm.post({ user: "u9", name: "gus", channel: "dm9", text: "hi" });
  const [notice] = await mm.waitForPosts(1, 20_000);
  await approve(notice!.message, "mm", "u9");
  mm.post({ user: "u9", name: "gus", channel: "dm9", text: "let me in" });
  const [, reply] = await mm.waitForPosts(2, 20_000);
  expect(reply).toMatchObject({ channel_id: "dm9", message: "echo: let me in" });
  await restart("mm");
  await until("the WebSocket of the new process", async () => (await channel("mm")).detail.includes("connected"));
  mm.post({ user: "u9", name: "gus", channel: "dm9", text: "after" });
  await mm.waitForPosts(3, 20_000);
  await Bun.sleep(300);
  expect(mm.posts.map((p) => p.message)).toEqual([notice!.message, "echo: let me in", "echo: after"]);
});

test("teams: forged tokens refused and counted, pairing, approval, reply, and no second answer after a restart", async () => {
  const hook = `${gateway.url}/channels/ms/webhook`;
  expect((await ms.deliver(hook, ms.activity({ from: "29:x", text: "forged" }), "unknown-key")).status).toBe(401);
  expect((await ms.deliver(hook, ms.activity({ from: "29:x", text: "unsigned" }), "missing")).status).toBe(401);
  await until("the refusals counted", async () => (await channel("ms")).stats.rejected === 2);
  expect((await ms.deliver(hook, ms.activity({ from: "29:h", name: "Hal", text: "hi" }))).status).toBe(200);
  const [notice] = await ms.waitForSent(1, 20_000);
  await approve(notice!.text, "ms", "29:h");
  const next = ms.activity({ from: "29:h", text: "let me in" });
  expect((await ms.deliver(hook, next)).status).toBe(200);
  const [, reply] = await ms.waitForSent(2, 20_000);
  expect(reply).toMatchObject({ replyTo: next.id, text: "echo: let me in" });
  await restart("ms");
  await until("the redelivery accepted", async () => (await ms.deliver(hook, next)).status === 200);
  await Bun.sleep(300);
  expect(ms.sent.filter((s) => s.type === "message")).toHaveLength(2);
});
