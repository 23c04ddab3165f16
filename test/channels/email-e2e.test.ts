/**
 * The email channel supervised by the built gateway against a real Dovecot (IMAP, SMTP submission): an unknown
 * sender's mail gets a pairing code, the approval through the API lets the next mail through, the process killed
 * with SIGKILL mid-message is restarted and answers that mail once, and a restart answers nothing twice.
 * `prx channel doctor` logs in to both servers with the channel's password, and names the refusal of a wrong one.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { ParsedMail } from "mailparser";
import { startFakeOpenAI, type FakeServer } from "../fakes/openai-server.ts";
import { ensureBinary, fakeProviderConfig, runPrx, startGatewayBinary, type RunningGateway } from "../helpers/binary.ts";
import { DOVECOT, mailPerson, startMailServers, type MailServers } from "../helpers/mail-servers.ts";
import { waitFor } from "../helpers/wait.ts";
import { tempWorkspace } from "../helpers/workspace.ts";

setDefaultTimeout(120_000);
const enabled = Boolean(DOVECOT || process.env.CI);
const BOT = { address: "bot@example.test", password: "bot-secret" };
const EVE = { address: "eve@example.test", password: "eve-secret" };

let provider: FakeServer;
let servers: MailServers;
let gateway: RunningGateway;
let token = "";
let dir = "";
let cleanup = () => {};

async function api(path: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(`${gateway.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } });
  const body = await response.json();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}
const info = async () => ((await api("/api/channels")).channels as any[]).find((c) => c.name === "mail");
const running = async () => {
  const now = await info();
  return now?.state === "running" && String(now.detail).includes("bot@example.test on") ? now : false;
};
const echoes = (mails: ParsedMail[]) => mails.map((m) => m.text?.trim() ?? "").filter((t) => t.startsWith("echo: "));

beforeAll(async () => {
  if (!enabled) return;
  await ensureBinary();
  provider = startFakeOpenAI();
  servers = await startMailServers([BOT, EVE]);
  const ws = tempWorkspace(
    fakeProviderConfig(
      provider.url,
      `[channels.mail]\nkind = "email"\nenabled = true\nimap_server = "127.0.0.1:${servers.imapPort}"\nsmtp_server = "127.0.0.1:${servers.smtpPort}"\n` +
        `address = "${BOT.address}"\nsecret_env = "PRX_MAIL_PASSWORD"\nca_file = "${servers.caFile}"\n` +
        // the same account with SMTP on a port nothing listens on (1: tcpmux, unused): its doctor fails at SMTP
        `[channels.nosmtp]\nkind = "email"\nimap_server = "127.0.0.1:${servers.imapPort}"\nsmtp_server = "127.0.0.1:1"\n` +
        `address = "${BOT.address}"\nsecret_env = "PRX_MAIL_PASSWORD"\nca_file = "${servers.caFile}"\n[gateway]\nrate_limit_per_minute = 100000\nrate_limit_per_token_per_minute = 100000\n`,
    ),
  );
  cleanup = ws.cleanup;
  dir = ws.dir;
  gateway = await startGatewayBinary(ws.dir, { PRX_MAIL_PASSWORD: BOT.password });
  const paired = await fetch(`${gateway.url}/pair`, { method: "POST", headers: { "x-pairing-code": gateway.code! } });
  token = ((await paired.json()) as { token: string }).token;
  let last: unknown;
  await waitFor(async () => ((last = await info()), await running()), () => `the email channel running: ${JSON.stringify(last)}`);
}, 120_000);

afterAll(async () => {
  if (!enabled) return;
  gateway.proc.kill("SIGTERM");
  await gateway.proc.exited;
  await servers.close();
  await provider.stop();
  cleanup();
});

test.skipIf(!enabled)("email: pairing, approval, reply, a kill mid-message and a restart that answer every mail once", async () => {
  const eve = mailPerson(servers, EVE);
  await eve.send({ to: BOT.address, subject: "hi", text: "hello" });
  const [pairing] = await eve.waitFor((mails) => mails.some((m) => /Pairing code:/.test(m.text ?? "")), "the pairing code");
  const code = /Pairing code: (\S+)/.exec(pairing!.text ?? "")![1]!;
  expect(await api("/api/channels/pairings/approve", { method: "POST", body: JSON.stringify({ code }) })).toMatchObject({ channel: "mail", sender_id: EVE.address, state: "approved" });
  await eve.send({ to: BOT.address, subject: "first", text: "let me in" });
  await eve.waitFor((mails) => echoes(mails).length === 1, "the reply");

  // killed while the turn runs: the mail stays unseen, the restarted process answers it once
  const { pid, restarts } = await info();
  // the killed turn's answer is never heard; the restarted process asks again
  provider.enqueue({ type: "text", text: "never delivered", delayMs: 3000 });
  const requests = provider.chatRequests().length;
  await eve.send({ to: BOT.address, subject: "slow", text: "slow question" });
  await waitFor(() => provider.chatRequests().length > requests, "the turn to reach the provider");
  process.kill(pid, "SIGKILL");
  await eve.send({ to: BOT.address, subject: "down", text: "while it was down" });
  await waitFor(async () => {
    const now = await running();
    return now && now.restarts > restarts && now.pid !== pid;
  }, "the restarted process");
  await eve.waitFor((mails) => echoes(mails).length === 3, "the answers after the kill");

  const before = (await info()).restarts;
  await api("/api/channels/mail/restart", { method: "POST" });
  await waitFor(async () => {
    const now = await running();
    return now && now.restarts > before;
  }, "the restarted process");
  await eve.send({ to: BOT.address, subject: "after", text: "after" });
  const mails = await eve.waitFor((all) => echoes(all).length === 4, "the reply after the restart");
  await Bun.sleep(1500); // a second answer would arrive now
  // each new mail is a thread of its own, answered in its own order
  expect(echoes(await eve.inbox()).sort()).toEqual(["echo: Subject: first\n\nlet me in", "echo: Subject: slow\n\nslow question", "echo: Subject: down\n\nwhile it was down", "echo: Subject: after\n\nafter"].sort());
  expect(mails.length).toBe(5);
});

test.skipIf(!enabled)("email: prx channel doctor logs in over IMAP and SMTP, and names a refused password", async () => {
  const good = await runPrx(["channel", "doctor", "mail", "-w", dir], { env: { PRX_MAIL_PASSWORD: BOT.password } });
  expect(good).toMatchObject({ code: 0, stdout: `OK   channel mail (email): ${BOT.address}: IMAP 127.0.0.1:${servers.imapPort} and SMTP 127.0.0.1:${servers.smtpPort} accepted the login\n` });
  const bad = await runPrx(["channel", "doctor", "mail", "-w", dir], { env: { PRX_MAIL_PASSWORD: "wrong" } });
  expect(bad.code).toBe(1);
  expect(bad.stdout).toStartWith(`FAIL channel mail (email): email: IMAP login as ${BOT.address} on 127.0.0.1:${servers.imapPort}: Authentication failed.\n`);
  expect(bad.stdout).toContain("hint: check username (or address), the password in secret_env");
  const noSmtp = await runPrx(["channel", "doctor", "nosmtp", "-w", dir], { env: { PRX_MAIL_PASSWORD: BOT.password } });
  expect(noSmtp.code).toBe(1);
  expect(noSmtp.stdout).toStartWith(`FAIL channel nosmtp (email): email: SMTP login as ${BOT.address} on 127.0.0.1:1: connect ECONNREFUSED`);
});
