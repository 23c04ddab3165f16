/**
 * The Feishu / Lark channel as a supervised process of the built gateway, against the fake Open Platform with an
 * Encrypt Key: the request URL is verified, forged and missing signatures are refused and counted, an unknown
 * sender's encrypted DM gets a pairing code, the approval lets the next message through and its reply arrives, and a
 * restarted process does not answer a redelivered event twice. `prx channel doctor` checks the app's credentials.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { startFakeFeishu, type FakeFeishu } from "../fakes/feishu-server.ts";
import { ensureBinary, fakeProviderConfig, runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { waitFor } from "../helpers/wait.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(60_000);

let provider: FakeServer;
let fs: FakeFeishu;
let gateway: RunningGateway;
let dir = "";
let token = "";
let cleanup = () => {};
const ENCRYPT_KEY = "e2e-encrypt-key";

const env = () => ({ FS_SECRET: fs.appSecret, FS_VERIFY: fs.verificationToken, FS_ENCRYPT: ENCRYPT_KEY });
const config = () =>
  fakeProviderConfig(
    provider.url,
    `[reliability]\nretries = 0\n` +
      `[channels.fs]\nkind = "feishu"\nenabled = true\napp_id = "${fs.appId}"\nsecret_env = "FS_SECRET"\nverify_token_env = "FS_VERIFY"\n` +
      `encrypt_key_env = "FS_ENCRYPT"\napi_base_url = "${fs.url}"\n` +
      `[channels.plain]\nkind = "webhook"\nsecret_env = "FS_SECRET"\n`,
  );

async function api(path: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(`${gateway.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers } });
  return response.json();
}

async function channel(): Promise<any> {
  const { channels } = await api("/api/channels");
  return channels.find((c: { name: string }) => c.name === "fs");
}

beforeAll(async () => {
  await ensureBinary();
  provider = startFakeOpenAI();
  fs = startFakeFeishu({ encryptKey: ENCRYPT_KEY });
  const ws = tempWorkspace(config());
  dir = ws.dir;
  cleanup = ws.cleanup;
  gateway = await startGatewayBinary(dir, env());
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  token = ((await paired.json()) as { token: string }).token;
  await waitFor(async () => {
    const info = await channel();
    return info?.state === "running" && info.stats !== null && info;
  }, "fs running");
}, 120_000);

afterAll(async () => {
  gateway.proc.kill("SIGTERM");
  await gateway.proc.exited;
  await fs.stop();
  await provider.stop();
  cleanup();
});

test("feishu: URL verification, refused forgeries, pairing, approval, reply, and no second answer after a restart", async () => {
  const hook = `${gateway.url}/channels/fs/webhook`;
  const verified = await fs.verifyUrl(hook);
  expect(verified.status).toBe(200);
  expect(((await verified.json()) as { challenge: string }).challenge).toMatch(/^ch-/);

  const forged = fs.message({ from: "ou_e2e", text: "forged" });
  expect((await fs.deliver(hook, forged, "forged")).status).toBe(401);
  expect((await fs.deliver(hook, forged, "missing")).status).toBe(401);
  await waitFor(async () => (await channel()).stats.rejected === 2, "the refusals counted");

  expect((await fs.deliver(hook, fs.message({ from: "ou_e2e", text: "hi" }))).status).toBe(200);
  const [notice] = await fs.waitForSent(1, 20_000);
  const code = /Pairing code: (\S+)/.exec(notice!.text)?.[1];
  expect(code).toBeDefined();
  expect(provider.chatRequests()).toHaveLength(0);
  const approved = await api("/api/channels/pairings/approve", { method: "POST", body: JSON.stringify({ code }) });
  expect(approved).toMatchObject({ channel: "fs", sender_id: "ou_e2e", state: "approved" });

  const next = fs.message({ from: "ou_e2e", text: "let me in" });
  expect((await fs.deliver(hook, next)).status).toBe(200);
  const [, reply] = await fs.waitForSent(2, 20_000);
  expect(reply).toMatchObject({ replyTo: (next.event as any).message.message_id, chatId: "oc_dm_ou_e2e", text: "echo: let me in" });

  const restarts = (await channel()).restarts;
  await api("/api/channels/fs/restart", { method: "POST" });
  await waitFor(async () => {
    const info = await channel();
    return info.restarts > restarts && info.state === "running" && info.stats !== null && info;
  }, "the restarted fs");
  // the platform redelivers an event it did not see acknowledged: the new process answers it 200 and not again
  await waitFor(async () => (await fs.deliver(hook, next)).status === 200, "the redelivery accepted");
  await Bun.sleep(300);
  expect(fs.sent.map((s) => s.text)).toEqual([notice!.text, "echo: let me in"]);
  expect(provider.chatRequests()).toHaveLength(1);
});

test("prx channel doctor fs checks the app's credentials against the token endpoint; a wrong secret fails naming it", async () => {
  const ok = await runPrx(["channel", "doctor", "fs", "-w", dir], { env: env() });
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain(`OK   channel fs (feishu): app ${fs.appId}: credentials accepted; bot prx test`);
  const wrong = await runPrx(["channel", "doctor", "fs", "-w", dir], { env: { ...env(), FS_SECRET: "wrong" } });
  expect(wrong.code).toBe(1);
  expect(wrong.stdout).toContain("FAIL channel fs (feishu)");
  expect(wrong.stdout).toContain("app secret invalid");
  const unset = await runPrx(["channel", "doctor", "fs", "-w", dir], { env: { FS_VERIFY: fs.verificationToken } });
  expect(unset.code).toBe(1);
  expect(unset.stdout).toContain("secret_env is not set or its variable is empty");
  const other = await runPrx(["channel", "doctor", "plain", "-w", dir, "--json"], { env: env() });
  expect(other.code).toBe(0);
  expect(JSON.parse(other.stdout)).toMatchObject({ channel: "plain", kind: "webhook", status: "warn" });
});
