/** The Google Chat channel against the fake Chat (test/fakes/googlechat-server.ts), its endpoint served by a bridge standing in for the gateway. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ChatTokenVerifier } from "../../src/channels/googlechat/jwt.ts";
import {
  GOOGLE_CHAT_CLOCK_SKEW_S,
  GOOGLE_CHAT_KEYS_MAX_TTL_MS,
  GOOGLE_CHAT_KEYS_MIN_REFRESH_MS,
  GOOGLE_CHAT_KEYS_MIN_TTL_MS,
  GOOGLE_CHAT_MAX_MESSAGE_CHARS,
} from "../../src/channels/limits.ts";
import { CHAT_ISSUER, startFakeGoogleChat, type FakeGoogleChat } from "../fakes/googlechat-server.ts";
import { waitFor } from "../helpers/wait.ts";
import { channelHarness, webhookBridge, type ChannelHarness } from "./harness.ts";

let chat: FakeGoogleChat;
let h: ChannelHarness;
const bridges: Array<{ stop(force?: boolean): unknown }> = [];
const certs = () => `${chat.url}/service_accounts/v1/metadata/x509/${CHAT_ISSUER}`;
const table = (extra = "", audience = `project_number = "${chat.projectNumber}"\ncerts_url = "${certs()}"`) =>
  `[channels.gc]\nkind = "googlechat"\nsecret_env = "GC_KEY"\n${audience}\napi_base_url = "${chat.url}"\n${extra}\n`;
const env = () => ({ GC_KEY: chat.serviceAccountKey });
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));

describe.skipIf(!Bun.which("openssl"))("google chat (certificates made by openssl)", () => {
  beforeEach(() => {
    chat = startFakeGoogleChat();
  });
  afterEach(async () => {
    for (const b of bridges.splice(0)) b.stop(true);
    await h.close();
    await chat.stop();
  });

  test("tokens that are missing, forged, for another project, from another issuer, expired or tampered are 401 and counted", async () => {
    h = channelHarness(table('dm_policy = "open"'));
    const running = await h.start("gc", env());
    const url = webhookBridge(running, bridges);
    const flaws = ["missing", "unknown-key", "wrong-audience", "wrong-issuer", "expired", "tampered"] as const;
    for (const flaw of flaws) {
      const response = await chat.deliver(url, chat.message({ from: "users/1", text: `with ${flaw}` }), flaw);
      expect({ flaw, status: response.status }).toEqual({ flaw, status: 401 });
    }
    expect(running.channel.rejected).toBe(flaws.length);
    await running.runner.idle();
    expect(h.provider.chatRequests()).toHaveLength(0);
    // fetched at start; the unknown key did not refresh them again within the minimum interval
    expect(chat.certFetches).toBe(1);
  });

  test("the endpoint-URL audience takes Google's ID token for Chat's account and nothing else", async () => {
    const endpointUrl = "https://prx.example/channels/gc/webhook";
    h = channelHarness(table('dm_policy = "open"', `endpoint_url = "${endpointUrl}"\ncerts_url = "${chat.url}/oauth2/v1/certs"`));
    const running = await h.start("gc", env());
    const url = webhookBridge(running, bridges);
    const audience = { endpointUrl };
    expect((await chat.deliver(url, chat.message({ from: "users/2", text: "x" }), "not-chat", audience)).status).toBe(401);
    expect((await chat.deliver(url, chat.message({ from: "users/2", text: "x" }), "valid", { projectNumber: chat.projectNumber })).status).toBe(401);
    expect((await chat.deliver(url, chat.message({ from: "users/2", text: "by id token" }), "valid", audience)).status).toBe(200);
    const [reply] = await chat.waitForSent(1);
    expect(reply).toMatchObject({ space: "spaces/dm-users2", text: "echo: by id token" });
    expect(running.channel.rejected).toBe(2);
    // a chat named elsewhere (message_send's targets) goes into the URL's path only as a space name
    await expect(running.channel.send({ chatId: "spaces/x/../../v1/media", threadId: null, replyTo: null, text: "x" })).rejects.toThrow(/is not a space name/);
  });

  test("an unknown sender gets a pairing code; once approved the next DM is answered through the Chat API", async () => {
    h = channelHarness(table());
    const running = await h.start("gc", env());
    const url = webhookBridge(running, bridges);
    expect((await chat.deliver(url, chat.message({ from: "users/3", name: "Eve", text: "hello" }))).status).toBe(200);
    const [notice] = await chat.waitForSent(1);
    const code = /Pairing code: (\S+)/.exec(notice!.text)![1]!;
    expect(await running.host.storage.pairings.approve(code)).toMatchObject({ sender_id: "users/3", display: "Eve" });
    await chat.deliver(url, chat.message({ from: "users/3", text: "now?" }));
    const [, reply] = await chat.waitForSent(2);
    expect(reply).toEqual({ space: "spaces/dm-users3", thread: null, replyOption: null, text: "echo: now?" });
    expect(chat.tokenRequests).toBe(1);
  });

  test("in a space only a mention is answered, in the message's thread, without the mention; membership events are taken", async () => {
    h = channelHarness(table('dm_policy = "open"'));
    const running = await h.start("gc", env());
    const url = webhookBridge(running, bridges);
    expect((await chat.deliver(url, chat.membership("ADDED_TO_SPACE", "spaces/team"))).status).toBe(200);
    await chat.deliver(url, chat.message({ from: "users/4", text: "chatter", space: "spaces/team" }));
    await chat.deliver(url, chat.message({ from: "users/4", text: "help", space: "spaces/team", thread: "th1", mention: true }));
    const [reply] = await chat.waitForSent(1);
    await running.runner.idle();
    expect(reply).toEqual({ space: "spaces/team", thread: "spaces/team/threads/th1", replyOption: "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD", text: "echo: help" });
    expect(chat.sent).toHaveLength(1);
    expect((await chat.deliver(url, chat.membership("REMOVED_FROM_SPACE", "spaces/team"))).status).toBe(200);
  });

  test("a reply of exactly the limit is one message; one past is two", async () => {
    h = channelHarness(table('dm_policy = "open"'));
    const running = await h.start("gc", env());
    const url = webhookBridge(running, bridges);
    h.provider.enqueue({ type: "text", text: "a".repeat(GOOGLE_CHAT_MAX_MESSAGE_CHARS) });
    await chat.deliver(url, chat.message({ from: "users/5", text: "at the limit" }));
    await chat.waitForSent(1);
    await running.runner.idle();
    h.provider.enqueue({ type: "text", text: "a".repeat(GOOGLE_CHAT_MAX_MESSAGE_CHARS + 1) });
    await chat.deliver(url, chat.message({ from: "users/5", text: "one past" }));
    await chat.waitForSent(3);
    const lengths = chat.sent.map((s) => s.text.length);
    expect(lengths[0]).toBe(GOOGLE_CHAT_MAX_MESSAGE_CHARS);
    expect(lengths[1]! + lengths[2]!).toBe(GOOGLE_CHAT_MAX_MESSAGE_CHARS + 1);
  });

  test("a message delivered twice, and again to the next process, is answered once", async () => {
    h = channelHarness(table('dm_policy = "open"'));
    let running = await h.start("gc", env());
    const event = chat.message({ from: "users/6", text: "once" });
    await chat.deliver(webhookBridge(running, bridges), event);
    await chat.deliver(webhookBridge(running, bridges), event);
    await chat.waitForSent(1);
    await running.runner.idle();
    await running.stop();
    h.running.splice(0);
    running = await h.start("gc", env());
    await chat.deliver(webhookBridge(running, bridges), event);
    await running.runner.idle();
    await waitFor(() => running.runner.stats.duplicates === 1, "the duplicate");
    expect(chat.sent.map((s) => s.text)).toEqual(["echo: once"]);
  });

  test("an uploaded image is fetched through the media API and reaches the model", async () => {
    h = channelHarness(table('dm_policy = "open"'));
    const running = await h.start("gc", env());
    await chat.deliver(webhookBridge(running, bridges), chat.message({ from: "users/7", text: "what is this?", image: PNG }));
    await chat.waitForSent(1);
    const request = JSON.stringify(h.provider.chatRequests()[0]!.body);
    expect(request).toContain("what is this?");
    expect(request).toContain("data:image/png;base64,");
  });

  test("a key the token endpoint refuses fails the start; a config without an audience says what to set", async () => {
    h = channelHarness(table());
    const other = startFakeGoogleChat();
    try {
      await expect(h.start("gc", { GC_KEY: other.serviceAccountKey.replace(other.url, chat.url) })).rejects.toThrow(/token: HTTP 400: invalid_grant/);
    } finally {
      await other.stop();
    }
    await h.close();
    h = channelHarness(`[channels.gc]\nkind = "googlechat"\nsecret_env = "GC_KEY"\n`);
    await expect(h.start("gc", env())).rejects.toThrow(/project_number or endpoint_url/);
  });

  test("certificates are kept as long as Cache-Control says; an unknown key refreshes them at most every 5 minutes", async () => {
    h = channelHarness("");
    let now = Date.now();
    const verifier = new ChatTokenVerifier({ issuers: [CHAT_ISSUER], audience: chat.projectNumber, certsUrl: certs(), timeoutMs: 5000, signal: new AbortController().signal, now: () => now });
    const audience = { projectNumber: chat.projectNumber };
    expect(await verifier.verify(chat.authorization(audience))).toEqual({ ok: true });
    expect(await verifier.verify(chat.authorization(audience))).toEqual({ ok: true });
    expect(chat.certFetches).toBe(1);
    chat.rotate();
    const rotated = chat.authorization(audience);
    expect(await verifier.verify(rotated)).toEqual({ ok: false, reason: "token signed by an unknown key" });
    expect(chat.certFetches).toBe(1);
    now += GOOGLE_CHAT_KEYS_MIN_REFRESH_MS + 1;
    expect(await verifier.verify(rotated)).toEqual({ ok: true });
    expect(chat.certFetches).toBe(2);
    // the fake says max-age=21600 (6 hours, under GOOGLE_CHAT_KEYS_MAX_TTL_MS): kept that long, then fetched again
    const maxAge = chat.certsMaxAgeS * 1000;
    expect(maxAge).toBeLessThan(GOOGLE_CHAT_KEYS_MAX_TTL_MS);
    const refreshedAt = now;
    now = refreshedAt + maxAge;
    await verifier.verify(chat.authorization(audience));
    expect(chat.certFetches).toBe(2);
    now = refreshedAt + maxAge + 1;
    await verifier.verify(chat.authorization(audience));
    expect(chat.certFetches).toBe(3);
  });

  test("a max-age outside the bounds is held to them", async () => {
    h = channelHarness("");
    const audience = { projectNumber: chat.projectNumber };
    for (const [maxAgeS, keptMs] of [
      [60, GOOGLE_CHAT_KEYS_MIN_TTL_MS],
      [7 * 24 * 3600, GOOGLE_CHAT_KEYS_MAX_TTL_MS],
    ] as const) {
      chat.certsMaxAgeS = maxAgeS;
      let now = Date.now();
      const start = now;
      const verifier = new ChatTokenVerifier({ issuers: [CHAT_ISSUER], audience: chat.projectNumber, certsUrl: certs(), timeoutMs: 5000, signal: new AbortController().signal, now: () => now });
      const fetches = chat.certFetches;
      await verifier.verify(chat.authorization(audience));
      now = start + keptMs;
      await verifier.verify(chat.authorization(audience));
      expect({ maxAgeS, fetched: chat.certFetches - fetches }).toEqual({ maxAgeS, fetched: 1 });
      now = start + keptMs + 1;
      await verifier.verify(chat.authorization(audience));
      expect({ maxAgeS, fetched: chat.certFetches - fetches }).toEqual({ maxAgeS, fetched: 2 });
    }
  });

  test("exp, nbf and iat are taken within the clock skew, and not one second past it", async () => {
    h = channelHarness("");
    const nowS = Math.floor(Date.now() / 1000);
    const verifier = new ChatTokenVerifier({ issuers: [CHAT_ISSUER], audience: chat.projectNumber, certsUrl: certs(), timeoutMs: 5000, signal: new AbortController().signal, now: () => nowS * 1000 });
    const audience = { projectNumber: chat.projectNumber };
    const at = (claims: Record<string, number>) => verifier.verify(chat.authorization(audience, "valid", claims));
    expect(await at({ exp: nowS - GOOGLE_CHAT_CLOCK_SKEW_S })).toEqual({ ok: true });
    expect(await at({ exp: nowS - GOOGLE_CHAT_CLOCK_SKEW_S - 1 })).toEqual({ ok: false, reason: "token expired" });
    expect(await at({ nbf: nowS + GOOGLE_CHAT_CLOCK_SKEW_S })).toEqual({ ok: true });
    expect(await at({ nbf: nowS + GOOGLE_CHAT_CLOCK_SKEW_S + 1 })).toEqual({ ok: false, reason: "token not valid yet" });
    expect(await at({ iat: nowS + GOOGLE_CHAT_CLOCK_SKEW_S })).toEqual({ ok: true });
    expect(await at({ iat: nowS + GOOGLE_CHAT_CLOCK_SKEW_S + 1 })).toEqual({ ok: false, reason: "token issued in the future" });
  });

  test("a token verified once is taken again with its claims checked each time: refused once expired or once its key has left the set", async () => {
    h = channelHarness("");
    let now = Date.now();
    const verifier = new ChatTokenVerifier({ issuers: [CHAT_ISSUER], audience: chat.projectNumber, certsUrl: certs(), timeoutMs: 5000, signal: new AbortController().signal, now: () => now });
    const audience = { projectNumber: chat.projectNumber };
    const token = chat.authorization(audience)!;
    expect(await verifier.verify(token)).toEqual({ ok: true });
    expect(await verifier.verify(token)).toEqual({ ok: true });
    expect(await verifier.verify(chat.authorization(audience, "tampered"))).toEqual({ ok: false, reason: "signature mismatch" });
    const { exp } = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { exp: number };
    const start = now;
    now = (exp + GOOGLE_CHAT_CLOCK_SKEW_S) * 1000;
    expect(await verifier.verify(token)).toEqual({ ok: true });
    now += 1000;
    expect(await verifier.verify(token)).toEqual({ ok: false, reason: "token expired" });
    now = start;
    chat.rotate();
    chat.rotate();
    now += GOOGLE_CHAT_KEYS_MIN_REFRESH_MS + 1;
    // a token of the newest key refreshes the certificates: the first one's key is gone from them
    expect(await verifier.verify(chat.authorization(audience))).toEqual({ ok: true });
    expect(await verifier.verify(token)).toEqual({ ok: false, reason: "token signed by an unknown key" });
  });
});
