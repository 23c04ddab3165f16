/** The Teams channel against the fake Bot Framework (test/fakes/teams-server.ts), its endpoint served by a bridge standing in for the gateway. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { TEAMS_CLOCK_SKEW_S, TEAMS_KEYS_MIN_REFRESH_MS, TEAMS_KEYS_TTL_MS } from "../../src/channels/limits.ts";
import { BotTokenVerifier } from "../../src/channels/teams/jwt.ts";
import { startFakeTeams, type FakeTeams } from "../fakes/teams-server.ts";
import { waitFor } from "../helpers/wait.ts";
import { channelHarness, webhookBridge, type ChannelHarness } from "./harness.ts";

let teams: FakeTeams;
let h: ChannelHarness;
const bridges: Array<{ stop(force?: boolean): unknown }> = [];
const table = (extra = "") =>
  `[channels.ms]\nkind = "teams"\napp_id = "${teams.appId}"\nsecret_env = "TEAMS_PW"\nopenid_url = "${teams.url}/v1/.well-known/openidconfiguration"\n` +
  `token_url = "${teams.url}/botframework.com/oauth2/v2.0/token"\n${extra}\n`;
const env = () => ({ TEAMS_PW: teams.password });


beforeEach(async () => {
  teams = await startFakeTeams();
});
afterEach(async () => {
  for (const b of bridges.splice(0)) b.stop(true);
  await h.close();
  await teams.stop();
});

test("tokens that are missing, forged, for another bot, from another issuer, expired or tampered are 401 and counted", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("ms", env());
  const url = webhookBridge(running, bridges);
  const flaws = ["missing", "unknown-key", "wrong-audience", "wrong-issuer", "expired", "tampered"] as const;
  for (const flaw of flaws) {
    const response = await teams.deliver(url, teams.activity({ from: "29:u1", text: `with ${flaw}` }), flaw);
    expect({ flaw, status: response.status }).toEqual({ flaw, status: 401 });
  }
  // a valid token for an activity of a channel its key is not endorsed for
  const other = { ...teams.activity({ from: "29:u1", text: "from skype" }), channelId: "skype" };
  expect((await teams.deliver(url, other)).status).toBe(401);
  expect(running.channel.rejected).toBe(flaws.length + 1);
  await running.runner.idle();
  expect(h.provider.chatRequests()).toHaveLength(0);
  // the unknown key refreshed the keys once; the others used the cache
  expect(teams.keyFetches).toBe(1);
});

test("an unknown sender gets a pairing code; once approved the next activity is answered in reply to it", async () => {
  h = channelHarness(table());
  const running = await h.start("ms", env());
  const url = webhookBridge(running, bridges);
  expect((await teams.deliver(url, teams.activity({ from: "29:u2", name: "Eve", text: "hello" }))).status).toBe(200);
  const [notice] = await teams.waitForSent(1);
  const code = /Pairing code: (\S+)/.exec(notice!.text!)![1]!;
  expect(await running.host.storage.pairings.approve(code)).toMatchObject({ sender_id: "29:u2", display: "Eve" });
  const next = teams.activity({ from: "29:u2", text: "now?" });
  await teams.deliver(url, next);
  const [, reply] = await teams.waitForSent(2);
  expect(reply).toMatchObject({ conversation: "a:129u2", replyTo: next.id, text: "echo: now?" });
  expect(teams.sent.some((s) => s.type === "typing")).toBe(true);
  expect(teams.tokenRequests).toBe(1);
});

test("in a group chat only a mention is answered, without the mention tag", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("ms", env());
  const url = webhookBridge(running, bridges);
  await teams.deliver(url, teams.activity({ from: "29:u3", text: "chatter", type: "groupChat", conversation: "19:group" }));
  await teams.deliver(url, teams.activity({ from: "29:u3", text: "help", type: "groupChat", conversation: "19:group", mention: true }));
  const [reply] = await teams.waitForSent(1);
  await running.runner.idle();
  expect(reply).toMatchObject({ conversation: "19:group", text: "echo: help" });
  expect(teams.sent.filter((s) => s.type === "message")).toHaveLength(1);
});

test("a wrong app password fails the start with the token endpoint's answer", async () => {
  h = channelHarness(table());
  await expect(h.start("ms", { TEAMS_PW: "wrong" })).rejects.toThrow(/token: HTTP 401/);
});

test("a redelivered activity is answered once, also by the next process", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  let running = await h.start("ms", env());
  const activity = teams.activity({ from: "29:u5", text: "once" });
  await teams.deliver(webhookBridge(running, bridges), activity);
  await teams.deliver(webhookBridge(running, bridges), activity);
  await teams.waitForSent(1);
  await running.runner.idle();
  await running.stop();
  h.running.splice(0);
  running = await h.start("ms", env());
  await teams.deliver(webhookBridge(running, bridges), activity);
  await running.runner.idle();
  await waitFor(() => running.runner.stats.duplicates === 1, "the duplicate");
  expect(teams.sent.filter((s) => s.type === "message").map((s) => s.text)).toEqual(["echo: once"]);
});

/** A verifier of the fake's tokens on an injected clock. */
function verifierOnClock(now: () => number): BotTokenVerifier {
  return new BotTokenVerifier({
    openIdUrl: `${teams.url}/v1/.well-known/openidconfiguration`,
    issuer: "https://api.botframework.com",
    audience: teams.appId,
    timeoutMs: 5000,
    signal: new AbortController().signal,
    now,
  });
}

test("signing keys are cached; an unknown key refreshes them at most every 5 minutes; they are refetched after a day", async () => {
  h = channelHarness("");
  let now = Date.now();
  const verifier = verifierOnClock(() => now);
  expect(await verifier.verify(await teams.authorization(), teams.url)).toMatchObject({ ok: true });
  expect(await verifier.verify(await teams.authorization(), teams.url)).toMatchObject({ ok: true });
  expect(teams.keyFetches).toBe(1);
  await teams.rotate();
  const rotated = await teams.authorization();
  expect(await verifier.verify(rotated, teams.url)).toEqual({ ok: false, reason: "token signed by an unknown key" });
  expect(teams.keyFetches).toBe(1);
  now += TEAMS_KEYS_MIN_REFRESH_MS + 1;
  expect(await verifier.verify(rotated, teams.url)).toMatchObject({ ok: true });
  expect(teams.keyFetches).toBe(2);
  now += TEAMS_KEYS_TTL_MS + 1;
  // a day later the token itself has expired, but the keys are fetched again first
  await verifier.verify(rotated, teams.url);
  expect(teams.keyFetches).toBe(3);
  expect(await verifier.verify(rotated, "https://elsewhere.example")).toMatchObject({ ok: false });
});

test("a token verified once is taken again with its claims checked each time: refused once expired or once its key has left the set", async () => {
  h = channelHarness("");
  let now = Date.now();
  const verifier = () => verifierOnClock(() => now);
  const first = verifier();
  const token = (await teams.authorization())!;
  expect(await first.verify(token, teams.url)).toMatchObject({ ok: true });
  expect(await first.verify(token, teams.url)).toMatchObject({ ok: true });
  expect(await first.verify(token, "https://elsewhere.example")).toEqual({ ok: false, reason: "serviceUrl claim does not match the activity" });
  expect(await first.verify(await teams.authorization("tampered"), teams.url)).toEqual({ ok: false, reason: "signature mismatch" });
  const { exp } = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { exp: number };
  now = (exp + TEAMS_CLOCK_SKEW_S) * 1000;
  expect(await first.verify(token, teams.url)).toMatchObject({ ok: true });
  now += 1000;
  expect(await first.verify(token, teams.url)).toEqual({ ok: false, reason: "token expired" });

  now = Date.now();
  const second = verifier();
  const signed = (await teams.authorization())!;
  expect(await second.verify(signed, teams.url)).toMatchObject({ ok: true });
  await teams.rotate();
  await teams.rotate();
  now += TEAMS_KEYS_MIN_REFRESH_MS + 1;
  // a token of the newest key refreshes the keys: the first one's key is gone from them
  expect(await second.verify(await teams.authorization(), teams.url)).toMatchObject({ ok: true });
  expect(await second.verify(signed, teams.url)).toEqual({ ok: false, reason: "token signed by an unknown key" });
});
