/**
 * How the email channel reads what IDLE announces, seen in Dovecot's own record of the bot's IMAP session (its rawlog):
 * a mail announced alone is read in one FETCH of its sequence number, no search; one that is not new unseen mail
 * sends the channel back to a search.
 */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ImapFlow } from "imapflow";
import { EMAIL_MAX_MESSAGE_BYTES } from "../../src/channels/limits.ts";
import { DOVECOT, mailPerson, startMailServers, type MailServers } from "../helpers/mail-servers.ts";
import { waitFor } from "../helpers/wait.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";

// a test that needs Dovecot never skips under CI, which installs it
const needsServer = test.skipIf(!DOVECOT && !process.env.CI);
setDefaultTimeout(60_000);

const BOT = { address: "bot@example.test", password: "bot-secret" };
const ANN = { address: "ann@example.test", password: "ann-secret" };

let servers: MailServers;
let h: ChannelHarness;

beforeAll(async () => {
  if (!DOVECOT && !process.env.CI) return;
  servers = await startMailServers([BOT, ANN], { rawlog: true });
  h = channelHarness(
    `[channels.mail]\nkind = "email"\nimap_server = "127.0.0.1:${servers.imapPort}"\nsmtp_server = "127.0.0.1:${servers.smtpPort}"\n` +
      `address = "${BOT.address}"\nsecret_env = "PRX_TEST_MAIL_PASSWORD"\nca_file = "${servers.caFile}"\ndm_policy = "open"\n`,
  );
}, 60_000);

afterAll(async () => {
  await h?.close();
  await servers?.close();
});

/** The commands the bot's IMAP sessions sent since `since` (wall clock), tags left off. */
const commands = (since: number) =>
  servers
    .rawlog(BOT, "in")
    .filter((e) => e.at >= since)
    .map((e) => e.line.replace(/^\S+ /, ""));

needsServer("a mail announced alone is read in one FETCH and no search; an announced mail already seen sends the channel back to a search", async () => {
  const running = await h.start("mail", { PRX_TEST_MAIL_PASSWORD: BOT.password });
  const ann = mailPerson(servers, ANN);
  // the connection's first search is done once the channel is running
  await waitFor(() => commands(0).some((c) => /^UID SEARCH/.test(c)), "the first search");
  const since = Date.now();
  await ann.send({ to: BOT.address, subject: "one", text: "first question" });
  await ann.waitFor((m) => m.some((x) => x.text?.includes("first question")), "the reply to the first mail");
  // settled: marked seen after the answer (Dovecot writes its rawlog a moment later; what came before is in it then)
  await waitFor(() => commands(since).some((c) => /^UID STORE \d+ \+FLAGS/.test(c)), "the mail marked seen");
  const read = commands(since);
  expect(read.filter((c) => /SEARCH/.test(c))).toEqual([]);
  const fetches = read.filter((c) => /FETCH/.test(c));
  expect(fetches).toHaveLength(1);
  expect(fetches[0]).toMatch(new RegExp(`^FETCH 1 \\(.*BODY\\.PEEK\\[\\]<0\\.${EMAIL_MAX_MESSAGE_BYTES}>`));

  // a mail put in the INBOX already seen: read, not answered, and a search follows
  const other = new ImapFlow({ host: "127.0.0.1", port: servers.imapPort, secure: false, tls: { ca: readFileSync(servers.caFile, "utf8") }, auth: { user: BOT.address, pass: BOT.password }, logger: false });
  other.on("error", () => {});
  await other.connect();
  const seenAt = Date.now();
  try {
    await other.append("INBOX", `From: ${ANN.address}\r\nTo: ${BOT.address}\r\nSubject: read elsewhere\r\nMessage-ID: <seen@example.test>\r\n\r\nalready read\r\n`, ["\\Seen"]);
  } finally {
    await other.logout();
  }
  await waitFor(() => commands(seenAt).some((c) => /^UID SEARCH/.test(c)), "the search after the seen mail");
  await ann.send({ to: BOT.address, subject: "two", text: "second question" });
  await ann.waitFor((m) => m.some((x) => x.text?.includes("second question")), "the reply to the second mail");
  await running.runner.idle();
  const answered = (await ann.inbox()).filter((m) => m.from?.value[0]?.address === BOT.address);
  expect(answered.map((m) => m.subject).sort()).toEqual(["Re: one", "Re: two"]);
  expect(h.provider.chatRequests().some((r) => JSON.stringify(r).includes("already read"))).toBe(false);
});
