/**
 * The email channel's named limits at their boundary: the mail size it still downloads (against a real Dovecot, the
 * size being the server's RFC822.SIZE) and the unseen mail one search reads.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ImapFlow } from "imapflow";
import { fetchBatch } from "../../src/channels/email/batch.ts";
import { EMAIL_MAX_FETCH_BATCH, EMAIL_MAX_MESSAGE_BYTES } from "../../src/channels/limits.ts";
import { DOVECOT, startMailServers, type MailServers } from "../helpers/mail-servers.ts";
import { waitFor } from "../helpers/wait.ts";
import { channelHarness, type ChannelHarness } from "./harness.ts";

// a test that needs Dovecot never skips under CI, which installs it
const needsServer = test.skipIf(!DOVECOT && !process.env.CI);
setDefaultTimeout(120_000);

const BOT = { address: "bot@example.test", password: "bot-secret" };
const ANN = "ann@example.test";

describe("EMAIL_MAX_FETCH_BATCH: the unseen mail one search reads", () => {
  const uids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

  test("exactly the limit: all of it, and no other search is asked for", () => {
    const { batch, more } = fetchBatch(uids(EMAIL_MAX_FETCH_BATCH));
    expect(batch).toEqual(uids(EMAIL_MAX_FETCH_BATCH));
    expect(more).toBe(false);
  });

  test("one past: the oldest EMAIL_MAX_FETCH_BATCH, and the next search reads the last", () => {
    const { batch, more } = fetchBatch(uids(EMAIL_MAX_FETCH_BATCH + 1));
    expect(batch).toEqual(uids(EMAIL_MAX_FETCH_BATCH));
    expect(more).toBe(true);
  });
});

describe("EMAIL_MAX_MESSAGE_BYTES: the largest mail downloaded and read", () => {
  let servers: MailServers;
  let h: ChannelHarness;
  let imap: ImapFlow;

  beforeAll(async () => {
    if (!DOVECOT && !process.env.CI) return;
    servers = await startMailServers([BOT, { address: ANN, password: "ann-secret" }]);
    h = channelHarness(
      `[channels.mail]\nkind = "email"\nimap_server = "127.0.0.1:${servers.imapPort}"\nsmtp_server = "127.0.0.1:${servers.smtpPort}"\n` +
        `address = "${BOT.address}"\nsecret_env = "PRX_TEST_MAIL_PASSWORD"\nca_file = "${servers.caFile}"\nallow = ["${ANN}"]\n`,
    );
    await h.start("mail", { PRX_TEST_MAIL_PASSWORD: BOT.password });
    imap = new ImapFlow({ host: "127.0.0.1", port: servers.imapPort, secure: false, tls: { ca: readFileSync(servers.caFile, "utf8") }, auth: { user: BOT.address, pass: BOT.password }, logger: false });
    imap.on("error", () => {});
    await imap.connect();
    await imap.mailboxOpen("INBOX");
  }, 120_000);

  afterAll(async () => {
    await imap?.logout().catch(() => undefined);
    await h?.close();
    await servers?.close();
  });

  /**
   * A mail from Ann of exactly `bytes` bytes (CRLF lines, as RFC822.SIZE counts them), put in the bot's INBOX: a line
   * of text and a file attachment making up the size (a text that long would be refused as a message on its own).
   */
  async function deliver(subject: string, bytes: number): Promise<void> {
    const line = `${"A".repeat(76)}\r\n`;
    const parts = (pad: string, filler: string) =>
      `From: ${ANN}\r\nTo: ${BOT.address}\r\nSubject: ${subject}\r\nMessage-ID: <${subject}@example.test>\r\nX-Pad: ${pad}\r\n` +
      `MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n` +
      `--b\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\nplease read ${subject}\r\n` +
      `--b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename="big.bin"\r\nContent-Transfer-Encoding: base64\r\n\r\n` +
      `${filler}--b--\r\n`;
    const room = bytes - parts("", "").length;
    const raw = parts("p".repeat(room % line.length), line.repeat(Math.floor(room / line.length)));
    expect(Buffer.byteLength(raw)).toBe(bytes);
    const appended = await imap.append("INBOX", raw);
    if (!appended || typeof appended !== "object" || !appended.uid) throw new Error("the server gave no UID for the appended mail");
    const meta = await imap.fetchOne(String(appended.uid), { size: true }, { uid: true });
    // the limit is on the size the server reports: the mail must be that size there
    expect(meta && meta.size).toBe(bytes);
  }

  const turnWith = (text: string) => waitFor(() => h.provider.chatRequests().map((r) => JSON.stringify(r)).find((r) => r.includes(text)), `a turn with ${text}`);

  needsServer("a mail of exactly the limit is downloaded and its text read", async () => {
    await deliver("at-limit", EMAIL_MAX_MESSAGE_BYTES);
    const turn = await turnWith("Subject: at-limit");
    expect(turn).toContain("please read at-limit");
    expect(turn).toContain("[attached: big.bin");
    expect(turn).not.toContain("over the limit");
  });

  needsServer("one byte more: only its headers are read, and the turn is told it was too large", async () => {
    await deliver("past-limit", EMAIL_MAX_MESSAGE_BYTES + 1);
    // the note stands in for the whole text (the subject line included)
    const turn = await turnWith(`[an email of ${EMAIL_MAX_MESSAGE_BYTES + 1} bytes arrived, over the limit of ${EMAIL_MAX_MESSAGE_BYTES}; it was not read]`);
    expect(turn).not.toContain("please read past-limit");
  });
});
