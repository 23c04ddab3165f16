/**
 * `prx channel doctor` of the built binary for every platform with a "who am I" call, each against its platform's fake
 * (IRC against a real ngIRCd with a server password): the right credentials are OK (exit 0) with what the platform said
 * of them, a wrong one is FAIL naming the platform's refusal (exit 1). Email's check runs in email-e2e.test.ts, next
 * to its Dovecot.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeDiscord, type FakeDiscord } from "../fakes/discord-server.ts";
import { startFakeMatrix, type FakeMatrix } from "../fakes/matrix-server.ts";
import { startFakeMattermost, type FakeMattermost } from "../fakes/mattermost-server.ts";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { startFakeSignal, type FakeSignal } from "../fakes/signal-server.ts";
import { startFakeSlack, type FakeSlack } from "../fakes/slack-server.ts";
import { startFakeTeams, type FakeTeams } from "../fakes/teams-server.ts";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram-server.ts";
import { startFakeWhatsApp, type FakeWhatsApp } from "../fakes/whatsapp-server.ts";
import { ensureBinary, fakeProviderConfig, runPrx } from "../helpers/binary.ts";
import { ircPerson, NGIRCD, startNgircd, type Ngircd } from "../helpers/ngircd.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(60_000);
const ircEnabled = Boolean(NGIRCD || process.env.CI);
const IRC_PASSWORD = "irc-server-secret";

let provider: FakeServer;
let tg: FakeTelegram;
let slack: FakeSlack;
let discord: FakeDiscord;
let matrix: FakeMatrix;
let wa: FakeWhatsApp;
let sig: FakeSignal;
let sigOne: FakeSignal;
let mm: FakeMattermost;
let teams: FakeTeams;
let irc: Ngircd | null = null;
let dir = "";
let env: Record<string, string> = {};
let cleanup = () => {};

const doctor = (name: string, overrides: Record<string, string> = {}, json = false) =>
  runPrx(["channel", "doctor", name, "-w", dir, ...(json ? ["--json"] : [])], { env: { ...env, ...overrides } });

describe("prx channel doctor against each platform", () => {
  beforeAll(async () => {
    await ensureBinary();
    provider = startFakeOpenAI();
    tg = startFakeTelegram();
    slack = startFakeSlack();
    discord = startFakeDiscord();
    matrix = startFakeMatrix();
    wa = startFakeWhatsApp();
    sig = startFakeSignal();
    sigOne = startFakeSignal("+15550002222", { singleAccount: true });
    mm = startFakeMattermost();
    teams = await startFakeTeams();
    if (ircEnabled) irc = await startNgircd({ password: IRC_PASSWORD });
    const ws = tempWorkspace(
      fakeProviderConfig(
        provider.url,
        `[channels.tg]\nkind = "telegram"\ntoken_env = "TG_TOKEN"\napi_base_url = "${tg.url}"\n` +
          `[channels.sl]\nkind = "slack"\ntoken_env = "SLACK_BOT"\napp_token_env = "SLACK_APP"\napi_base_url = "${slack.url}"\n` +
          `[channels.dc]\nkind = "discord"\ntoken_env = "DC_TOKEN"\napi_base_url = "${discord.url}"\n` +
          `[channels.mx]\nkind = "matrix"\ntoken_env = "MX_TOKEN"\napi_base_url = "${matrix.url}"\n` +
          `[channels.wa]\nkind = "whatsapp"\ntoken_env = "WA_TOKEN"\nsecret_env = "WA_SECRET"\nverify_token_env = "WA_VERIFY"\nphone_number_id = "${wa.phoneNumberId}"\napi_base_url = "${wa.url}"\n` +
          `[channels.sig]\nkind = "signal"\napi_base_url = "${sig.url}"\naccount = "${sig.account}"\n` +
          `[channels.sig2]\nkind = "signal"\napi_base_url = "${sig.url}"\naccount = "+15550001111"\n` +
          `[channels.sig1]\nkind = "signal"\napi_base_url = "${sigOne.url}"\naccount = "${sigOne.account}"\n` +
          `[channels.mm]\nkind = "mattermost"\ntoken_env = "MM_TOKEN"\napi_base_url = "${mm.url}"\n` +
          `[channels.ms]\nkind = "teams"\napp_id = "${teams.appId}"\nsecret_env = "TEAMS_PW"\n` +
          `openid_url = "${teams.url}/v1/.well-known/openidconfiguration"\ntoken_url = "${teams.url}/botframework.com/oauth2/v2.0/token"\n` +
          (irc ? `[channels.irc]\nkind = "irc"\nserver = "127.0.0.1:${irc.port}"\ntls = false\nnick = "prxdoctor"\nsecret_env = "IRC_PASSWORD"\n` : "") +
          `[channels.hook]\nkind = "webhook"\nsecret_env = "HOOK_SECRET"\n`,
      ),
    );
    dir = ws.dir;
    cleanup = ws.cleanup;
    env = {
      TG_TOKEN: tg.token,
      SLACK_BOT: slack.botToken,
      SLACK_APP: slack.appToken,
      DC_TOKEN: discord.token,
      MX_TOKEN: matrix.token,
      WA_TOKEN: wa.token,
      WA_SECRET: wa.appSecret,
      WA_VERIFY: wa.verifyToken,
      MM_TOKEN: mm.token,
      TEAMS_PW: teams.password,
      IRC_PASSWORD,
      HOOK_SECRET: "hook-secret",
    };
  }, 120_000);

  afterAll(async () => {
    await Promise.all([tg, slack, discord, matrix, wa, sig, sigOne, mm, teams, provider].map((fake) => fake?.stop()));
    await irc?.close();
    cleanup();
  });

  test("telegram: getMe", async () => {
    expect(await doctor("tg")).toMatchObject({ code: 0, stdout: "OK   channel tg (telegram): Telegram bot @prx_test_bot (id 999000)\n" });
    const bad = await doctor("tg", { TG_TOKEN: "123456:revoked" });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toStartWith("FAIL channel tg (telegram): telegram: getMe: 401 Unauthorized\n  hint: check the channel's token");
  });

  test("slack: auth.test with the bot token; the app token is left to Socket Mode", async () => {
    const connections = slack.connections;
    expect(await doctor("sl")).toMatchObject({
      code: 0,
      stdout: `OK   channel sl (slack): Slack bot prx (${slack.botUserId} in T); the app-level token is checked when Socket Mode connects\n`,
    });
    const bad = await doctor("sl", { SLACK_BOT: "xoxb-revoked" });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toStartWith("FAIL channel sl (slack): slack: auth.test: invalid_auth\n");
    expect(slack.connections).toBe(connections);
  });

  test("discord: GET /users/@me", async () => {
    expect(await doctor("dc")).toMatchObject({ code: 0, stdout: `OK   channel dc (discord): Discord bot prx-bot (id ${discord.botId})\n` });
    const bad = await doctor("dc", { DC_TOKEN: "revoked" });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toStartWith('FAIL channel dc (discord): discord: GET /users/@me: HTTP 401 {"message":"401: Unauthorized","code":0}\n');
    expect(discord.identifies).toBe(0);
  });

  test("matrix: whoami", async () => {
    expect(await doctor("mx")).toMatchObject({ code: 0, stdout: `OK   channel mx (matrix): Matrix user @prx:fake.local (device DEV) on ${matrix.url}\n` });
    const bad = await doctor("mx", { MX_TOKEN: "revoked" });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toStartWith("FAIL channel mx (matrix): matrix: GET /_matrix/client/v3/account/whoami: HTTP 401 M_UNKNOWN_TOKEN Invalid access token\n");
  });

  test("whatsapp: the phone number node", async () => {
    expect(await doctor("wa")).toMatchObject({ code: 0, stdout: `OK   channel wa (whatsapp): WhatsApp number +1 555-078-3881 (prx test), phone_number_id ${wa.phoneNumberId}\n` });
    const bad = await doctor("wa", { WA_TOKEN: "revoked" });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toStartWith("FAIL channel wa (whatsapp): whatsapp: phone number lookup: HTTP 401: Invalid OAuth access token. (code 190)\n");
  });

  test("signal: the configured account among the daemon's", async () => {
    expect(await doctor("sig")).toMatchObject({ code: 0, stdout: `OK   channel sig (signal): signal-cli 0.13.22 at ${sig.url}: account ${sig.account} registered\n` });
    const bad = await doctor("sig2");
    expect(bad.code).toBe(1);
    expect(bad.stdout).toStartWith(`FAIL channel sig2 (signal): channel sig2: account +15550001111 is not registered with signal-cli 0.13.22 at ${sig.url} (it has ${sig.account})\n`);
    expect(bad.stdout).toContain("hint: register or link it there");
    expect(sig.sends).toEqual([]);
    expect(await doctor("sig1")).toMatchObject({
      code: 0,
      stdout: `OK   channel sig1 (signal): signal-cli 0.13.22 at ${sigOne.url}: a single-account daemon (it serves the account it was started with, -a)\n`,
    });
  });

  test("mattermost: users/me", async () => {
    expect(await doctor("mm")).toMatchObject({ code: 0, stdout: `OK   channel mm (mattermost): Mattermost bot @prxbot (id ${mm.botId}) on ${mm.url}\n` });
    const bad = await doctor("mm", { MM_TOKEN: "revoked" });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toStartWith(
      "FAIL channel mm (mattermost): mattermost: users/me: HTTP 401: Invalid or expired session, please login again. (api.context.session_expired.app_error)\n",
    );
  });

  test("teams: a client-credentials token", async () => {
    const before = teams.tokenRequests;
    expect(await doctor("ms", {}, true)).toMatchObject({ code: 0 });
    expect(JSON.parse((await doctor("ms", {}, true)).stdout)).toEqual({
      channel: "ms",
      kind: "teams",
      status: "ok",
      detail: `Teams app ${teams.appId}: a Bot Framework token granted by ${new URL(teams.url).host}`,
    });
    expect(teams.tokenRequests).toBe(before + 2);
    const bad = await doctor("ms", { TEAMS_PW: "wrong" });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toStartWith("FAIL channel ms (teams): teams: token: HTTP 401 (check app_id and the password in secret_env)\n");
  });

  test.skipIf(!ircEnabled)("irc: registration with the server password, the welcome, QUIT", async () => {
    expect(await doctor("irc")).toMatchObject({ code: 0, stdout: "OK   channel irc (irc): IRC server irc.prx.test welcomed prxdoctor\n" });
    const bad = await doctor("irc", { IRC_PASSWORD: "wrong" });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toStartWith(`FAIL channel irc (irc): irc: 127.0.0.1:${irc!.port}: ERROR Access denied: Bad password?\n  hint: check server, tls, nick and the server password`);
    // the running channel holds the nick: the check registers under another
    const holder = await ircPerson(irc!.port, "prxdoctor", IRC_PASSWORD);
    try {
      await holder.waitFor(() => holder.lines.some((l) => / 001 prxdoctor /.test(l)), "the nick taken");
      expect(await doctor("irc")).toMatchObject({ code: 0, stdout: "OK   channel irc (irc): IRC server irc.prx.test welcomed prxdoctor_\n" });
    } finally {
      holder.quit();
    }
  });

  test("webhook: nothing to check", async () => {
    expect(await doctor("hook")).toMatchObject({
      code: 0,
      stdout: "WARN channel hook (webhook): configuration read; webhook has no credential check here (prx channel run hook connects with them)\n",
    });
  });
});
