/**
 * Google Chat and LINE channels as supervised processes of the built gateway, each against its platform's fake: a
 * forged or missing signature is refused and counted, an unknown sender's DM gets a pairing code, the approval lets
 * the next message through and its reply arrives, and a restarted process does not answer a redelivered message
 * twice. `prx channel doctor` checks each one's credentials against the fake.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { CHAT_ISSUER, startFakeGoogleChat, type FakeGoogleChat } from "../fakes/googlechat-server.ts";
import { startFakeLine, type FakeLine } from "../fakes/line-server.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary, fakeProviderConfig, runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { gatewayChannels } from "../helpers/gateway-channels.ts";
import { waitFor } from "../helpers/wait.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

const until = <T>(what: string, probe: () => Promise<T>) => waitFor(probe, what);

setDefaultTimeout(60_000);

let provider: FakeServer;
let gc: FakeGoogleChat;
let ln: FakeLine;
let gateway: RunningGateway;
let dir = "";
let env: Record<string, string> = {};
let token = "";
let cleanup = () => {};

const { api, channel, running, restart, approve } = gatewayChannels(() => ({ url: gateway.url, token }));

describe.skipIf(!Bun.which("openssl"))("google chat and LINE through the gateway binary", () => {
  beforeAll(async () => {
    await ensureBinary();
    provider = startFakeOpenAI();
    gc = startFakeGoogleChat();
    ln = startFakeLine();
    const ws = tempWorkspace(
      fakeProviderConfig(
        provider.url,
        `[reliability]\nretries = 0\n` +
          `[channels.gc]\nkind = "googlechat"\nenabled = true\nsecret_env = "GC_KEY"\nproject_number = "${gc.projectNumber}"\n` +
          `certs_url = "${gc.url}/service_accounts/v1/metadata/x509/${CHAT_ISSUER}"\napi_base_url = "${gc.url}"\n` +
          `[channels.ln]\nkind = "line"\nenabled = true\ntoken_env = "LINE_TOKEN"\nsecret_env = "LINE_SECRET"\napi_base_url = "${ln.url}"\ndata_api_url = "${ln.url}"\n` +
          `[channels.hook]\nkind = "webhook"\nsecret_env = "HOOK_SECRET"\n`,
      ),
    );
    dir = ws.dir;
    cleanup = ws.cleanup;
    env = { GC_KEY: gc.serviceAccountKey, LINE_TOKEN: ln.token, LINE_SECRET: ln.channelSecret };
    gateway = await startGatewayBinary(ws.dir, env);
    const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
    token = ((await paired.json()) as { token: string }).token;
    for (const name of ["gc", "ln"]) await running(name);
  }, 120_000);

  afterAll(async () => {
    gateway?.proc.kill("SIGTERM");
    await gateway?.proc.exited;
    await gc?.stop();
    await ln?.stop();
    await provider?.stop();
    cleanup();
  });

  test("google chat: forged tokens refused and counted, pairing, approval, reply, and no second answer after a restart", async () => {
    const hook = `${gateway.url}/channels/gc/webhook`;
    expect((await gc.deliver(hook, gc.message({ from: "users/9", text: "forged" }), "unknown-key")).status).toBe(401);
    expect((await gc.deliver(hook, gc.message({ from: "users/9", text: "unsigned" }), "missing")).status).toBe(401);
    await until("the refusals counted", async () => (await channel("gc")).stats.rejected === 2);
    expect((await gc.deliver(hook, gc.message({ from: "users/1", name: "Hal", text: "hi" }))).status).toBe(200);
    const [notice] = await gc.waitForSent(1, 20_000);
    expect(provider.chatRequests()).toHaveLength(0);
    await approve(notice!.text, "gc", "users/1");
    const next = gc.message({ from: "users/1", text: "let me in" });
    expect((await gc.deliver(hook, next)).status).toBe(200);
    const [, reply] = await gc.waitForSent(2, 20_000);
    expect(reply).toMatchObject({ space: "spaces/dm-users1", text: "echo: let me in" });
    await restart("gc");
    await until("the redelivery accepted", async () => (await gc.deliver(hook, next)).status === 200);
    await Bun.sleep(300);
    expect(gc.sent.map((s) => s.text)).toEqual([notice!.text, "echo: let me in"]);
  });

  test("line: forged signatures refused and counted, pairing, approval, reply, and no second answer after a restart", async () => {
    const hook = `${gateway.url}/channels/ln/webhook`;
    expect((await ln.deliver(hook, [ln.event({ from: "U9", text: "forged" })], "forged")).status).toBe(401);
    expect((await ln.deliver(hook, [ln.event({ from: "U9", text: "unsigned" })], "missing")).status).toBe(401);
    await until("the refusals counted", async () => (await channel("ln")).stats.rejected === 2);
    expect((await ln.deliver(hook, [ln.event({ from: "U1", text: "hi" })])).status).toBe(200);
    const [notice] = await ln.waitForSent(1, 20_000);
    await approve(notice!.text, "ln", "U1");
    const next = ln.event({ from: "U1", text: "let me in" });
    expect((await ln.deliver(hook, [next])).status).toBe(200);
    const [, reply] = await ln.waitForSent(2, 20_000);
    expect(reply).toEqual({ api: "reply", to: "U1", text: "echo: let me in" });
    await restart("ln");
    await until("the redelivery accepted", async () => (await ln.deliver(hook, [ln.redelivered(next)])).status === 200);
    await Bun.sleep(300);
    expect(ln.sent.map((s) => s.text)).toEqual([notice!.text, "echo: let me in"]);
  });

  test("prx channel doctor checks each channel's credentials against its platform", async () => {
    const good = await Promise.all(["gc", "ln"].map((name) => runPrx(["channel", "doctor", name, "-w", dir], { env })));
    expect(good.map((r) => r.code)).toEqual([0, 0]);
    expect(good[0]!.stdout).toContain("OK   channel gc (googlechat): Google Chat app (service account token; 1 signing certificates)");
    expect(good[1]!.stdout).toContain("OK   channel ln (line): LINE bot prx (@123abcde)");
    const bad = await runPrx(["channel", "doctor", "ln", "-w", dir], { env: { ...env, LINE_TOKEN: "revoked" } });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("FAIL channel ln (line): line: bot info: HTTP 401: Authentication failed");
    const other = await runPrx(["channel", "doctor", "hook", "-w", dir], { env: { HOOK_SECRET: "x" } });
    expect(other).toMatchObject({ code: 0, stdout: "WARN channel hook (webhook): configuration read; webhook has no credential check here (prx channel run hook connects with them)\n" });
    const unknown = await runPrx(["channel", "doctor", "nope", "-w", dir], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toStartWith('FAIL channel nope: no channel "nope"');
    const unset = await runPrx(["channel", "doctor", "gc", "-w", dir], { env: {} });
    expect(unset.code).toBe(1);
    expect(unset.stdout).toContain("FAIL channel gc (googlechat): channel gc: no Google Chat service account key (its JSON) (secret_env is not set or its variable is empty)");
    expect(unset.stdout).toContain('set secret_env = "GOOGLE_CHAT_SERVICE_ACCOUNT" in [channels.gc] and export that variable');
  });
});
