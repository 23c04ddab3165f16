/** The email channel against a real Dovecot (IMAP, SMTP submission, LMTP; Debian's packages, installed by .ci/run). */
import { afterEach, beforeEach, expect, setDefaultTimeout, test } from "bun:test";
import { DOVECOT, mailPerson, startMailServers, type MailPerson, type MailServers } from "../helpers/mail-servers.ts";
import { waitFor } from "../helpers/wait.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";

// a test that needs Dovecot never skips under CI, which installs it
const needsServer = test.skipIf(!DOVECOT && !process.env.CI);
setDefaultTimeout(60_000);

const BOT = { address: "bot@example.test", password: "bot-secret" };
const ANN = { address: "ann@example.test", password: "ann-secret" };
const BEN = { address: "ben@example.test", password: "ben-secret" };

let servers: MailServers;
let h: ChannelHarness | undefined;
const env = { PRX_TEST_MAIL_PASSWORD: BOT.password };

const table = (extra = "", smtpPort?: number) =>
  `[channels.mail]\nkind = "email"\nimap_server = "127.0.0.1:${servers.imapPort}"\nsmtp_server = "127.0.0.1:${smtpPort ?? servers.smtpPort}"\n` +
  `address = "${BOT.address}"\nsecret_env = "PRX_TEST_MAIL_PASSWORD"\nca_file = "${servers.caFile}"\n${extra}\n`;

beforeEach(async () => {
  if (DOVECOT || process.env.CI) servers = await startMailServers([BOT, ANN, BEN]);
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await servers?.close();
});

const fromBot = (person: MailPerson) => async () => (await person.inbox()).filter((m) => m.from?.value[0]?.address === BOT.address);

needsServer("an unknown sender gets a pairing code; once approved the next mail is answered in its thread", async () => {
  h = channelHarness(table());
  const running = await h.start("mail", env);
  const ann = mailPerson(servers, ANN);
  const first = await ann.send({ to: BOT.address, subject: "Hello", text: "hello bot" });
  const [pairing] = await ann.waitFor((mails) => mails.some((m) => /Pairing code:/.test(m.text ?? "")), "the pairing code");
  if (!pairing) throw new Error("no pairing mail");
  expect(pairing.inReplyTo).toBe(first);
  expect(pairing.subject).toBe("Re: Hello");
  expect(pairing.headers.get("auto-submitted")).toBe("auto-replied");
  expect(h.provider.chatRequests()).toHaveLength(0);
  const code = /Pairing code: (\S+)/.exec(pairing.text ?? "")![1]!;
  expect(await running.host.storage.pairings.approve(code)).toMatchObject({ sender_id: ANN.address });
  const second = await ann.send({ to: BOT.address, subject: "Re: Hello", text: "now?\n\nOn Sat, Ann wrote:\n> hello bot", inReplyTo: first, references: [first] });
  const mails = await ann.waitFor((m) => m.some((x) => x.text?.trim() === "echo: now?"), "the reply");
  const reply = mails.find((m) => m.text?.trim() === "echo: now?")!;
  expect(reply.inReplyTo).toBe(second);
  expect(reply.references).toEqual([first, second]);
  expect(reply.subject).toBe("Re: Hello");
  // the quoted history is not the sender's words
  expect(JSON.stringify(h.provider.chatRequests().at(-1))).not.toContain("hello bot");
});

needsServer("HTML-only and multipart mail is read as text; images are attachments, other files are named", async () => {
  h = channelHarness(table(`allow = ["${ANN.address}"]`));
  await h.start("mail", env);
  const ann = mailPerson(servers, ANN);
  const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
  await ann.send({
    to: BOT.address,
    subject: "Report",
    html: "<p>Please <b>read</b> this</p><ul><li>one</li></ul>",
    attachments: [
      { filename: "dot.png", content: png, contentType: "image/png" },
      { filename: "notes.pdf", content: Buffer.from("%PDF-1.4"), contentType: "application/pdf" },
    ],
  });
  await ann.waitFor((m) => m.some((x) => x.text?.startsWith("echo:")), "the reply");
  const request = JSON.stringify(h.provider.chatRequests().at(-1));
  expect(request).toContain("Subject: Report");
  expect(request).toContain("Please **read** this\\n\\n* one");
  expect(request).toContain("[attached: notes.pdf (application/pdf, 8 bytes), not read]");
  expect(request).toContain("image_url");
});

needsServer("implicit TLS submission works; auto-replies and mail from the bot itself are not answered", async () => {
  h = channelHarness(table('dm_policy = "open"\nsmtp_tls = "implicit"', servers.smtpsPort));
  const running = await h.start("mail", env);
  const ann = mailPerson(servers, ANN);
  await ann.send({ to: BOT.address, subject: "Out of office", text: "I am away", headers: { "Auto-Submitted": "auto-replied" } });
  await ann.send({ to: BOT.address, subject: "list", text: "digest", headers: { "List-Id": "<news.example.test>" } });
  await mailPerson(servers, BOT).send({ to: BOT.address, subject: "to myself", text: "a note" });
  await ann.send({ to: BOT.address, subject: "real", text: "a question" });
  await ann.waitFor((m) => m.some((x) => x.text?.includes("a question")), "the reply to the real mail");
  await running.runner.idle();
  expect((await fromBot(ann)()).length).toBe(1);
  expect(running.runner.stats.ignored).toBe(3);
});

needsServer("mail is flagged seen only once settled: a process stopped before the answer answers it after its restart, once", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const provider = h.provider;
  // the first turn never finishes: the process stops in the middle of it
  provider.enqueue({ type: "hang" });
  let running = await h.start("mail", env);
  const ben = mailPerson(servers, BEN);
  await ben.send({ to: BOT.address, subject: "Q", text: "are you there" });
  await waitFor(() => provider.chatRequests().length > 0, "the turn to start");
  await running.stop();
  h.running.splice(0);
  expect(await fromBot(ben)()).toHaveLength(0);
  running = await h.start("mail", env);
  await ben.waitFor((m) => m.some((x) => x.text?.includes("echo: Subject: Q")), "the answer after the restart");
  await running.runner.idle();
  await Bun.sleep(200);
  await running.stop();
  h.running.splice(0);
  running = await h.start("mail", env);
  await Bun.sleep(500);
  await running.runner.idle();
  expect(await fromBot(ben)()).toHaveLength(1);
});

needsServer("a server restart is survived: the channel reconnects and answers mail that came meanwhile", async () => {
  h = channelHarness(table('dm_policy = "open"'));
  const running = await h.start("mail", env);
  await servers.stop();
  await waitFor(() => !running.channel.health().ok, "the lost connection");
  await servers.restart();
  const ann = mailPerson(servers, ANN);
  await ann.send({ to: BOT.address, subject: "back", text: "you there?" });
  await ann.waitFor((m) => m.some((x) => x.text?.includes("you there?")), "the reply after the reconnect");
}, 60_000);
