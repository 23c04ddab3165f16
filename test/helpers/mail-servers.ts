/**
 * Real mail servers for the email channel's tests, on 127.0.0.1 with throw-away configuration in a temporary
 * directory: Dovecot (Debian `dovecot-imapd`, `dovecot-lmtpd`, `dovecot-submissiond`) serves IMAP (STARTTLS), SMTP
 * submission (STARTTLS on one port, implicit TLS on another; AUTH PLAIN/LOGIN only over TLS) and LMTP, and relays
 * what is submitted to its own LMTP, which delivers into per-user maildirs. A test sends mail to the bot through the
 * submission server as a person and reads the bot's replies from that person's mailbox over IMAP.
 * Dovecot's submission relays over SMTP and its LMTP greets only LHLO: a small relay between them turns the EHLO into
 * LHLO and passes everything else through (one recipient per message, where LMTP's answers match SMTP's).
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ImapFlow } from "imapflow";
import { simpleParser, type ParsedMail } from "mailparser";
import nodemailer from "nodemailer";
import { freePort, listeningOn } from "./own-servers.ts";
import { waitFor } from "./wait.ts";

export const DOVECOT = Bun.which("dovecot") ?? (Bun.file("/usr/sbin/dovecot").size > 0 ? "/usr/sbin/dovecot" : null);

export interface MailUser {
  address: string;
  password: string;
}

export interface MailServers {
  imapPort: number;
  /** Submission with STARTTLS. */
  smtpPort: number;
  /** Submission over implicit TLS. */
  smtpsPort: number;
  users: MailUser[];
  /** The servers' self-signed certificate (PEM): the CA a client trusts. */
  caFile: string;
  /** Stop the servers (clients are disconnected). */
  stop(): Promise<void>;
  /** Start them again on the same ports and mailboxes. */
  restart(): Promise<void>;
  /** Stop them and remove the directory. */
  close(): Promise<void>;
}

async function run(argv: string[]): Promise<string> {
  const proc = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}: ${err}`);
  return out;
}

/** A TCP relay to `lmtpPort` that sends the client's EHLO as LHLO. */
function lhloRelay(lmtpPort: number): { port: number; stop(closeActive: boolean): void } {
  type Pair = { upstream: Promise<import("bun").Socket<undefined>>; greeted: boolean };
  return Bun.listen<Pair>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        client.data = {
          greeted: false,
          upstream: Bun.connect({
            hostname: "127.0.0.1",
            port: lmtpPort,
            socket: { data: (_s, chunk) => void client.write(chunk), close: () => void client.end() },
          }),
        };
      },
      async data(client, chunk) {
        let bytes: Uint8Array = chunk;
        if (!client.data.greeted) {
          const text = new TextDecoder().decode(chunk);
          if (/^EHLO /i.test(text)) {
            client.data.greeted = true;
            bytes = new TextEncoder().encode(text.replace(/^EHLO /i, "LHLO "));
          }
        }
        (await client.data.upstream).write(bytes);
      },
      async close(client) {
        (await client.data.upstream.catch(() => null))?.end();
      },
    },
  });
}

export async function startMailServers(users: MailUser[]): Promise<MailServers> {
  if (!DOVECOT) throw new Error("Dovecot is not installed (apt-get install dovecot-imapd dovecot-lmtpd dovecot-submissiond)");
  const dir = mkdtempSync(join(tmpdir(), "prx-channels-mail-"));
  // Dovecot delivers as nobody, and the login processes run as dovenull: they must reach the directory
  chmodSync(dir, 0o755);
  const mail = join(dir, "mail");
  mkdirSync(mail);
  chmodSync(mail, 0o777);
  const [imapPort, lmtpPort, smtpPort, smtpsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const relay = lhloRelay(lmtpPort);
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  await run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", key, "-out", cert]);
  chmodSync(key, 0o600);
  writeFileSync(join(dir, "passwd"), users.map((u) => `${u.address}:{PLAIN}${u.password}::::::\n`).join(""));
  writeFileSync(
    join(dir, "dovecot.conf"),
    `base_dir = ${dir}/run\nstate_dir = ${dir}/state\ninstance_name = prx-mail-${imapPort}\nprotocols = imap lmtp submission\nhostname = localhost\n` +
      `listen = 127.0.0.1\nlog_path = ${dir}/dovecot.log\nssl = yes\nssl_cert = <${cert}\nssl_key = <${key}\n` +
      `auth_mechanisms = plain login\nmail_location = maildir:${mail}/%u\n` +
      `first_valid_uid = 1\nmail_uid = nobody\nmail_gid = nogroup\n` +
      `passdb {\n  driver = passwd-file\n  args = ${dir}/passwd\n}\n` +
      `userdb {\n  driver = static\n  args = uid=nobody gid=nogroup home=${mail}/%u\n}\n` +
      `service imap-login {\n  inet_listener imap {\n    address = 127.0.0.1\n    port = ${imapPort}\n  }\n  inet_listener imaps {\n    port = 0\n  }\n}\n` +
      `service lmtp {\n  inet_listener lmtp {\n    address = 127.0.0.1\n    port = ${lmtpPort}\n  }\n}\n` +
      `service submission-login {\n  inet_listener submission {\n    address = 127.0.0.1\n    port = ${smtpPort}\n  }\n  inet_listener submissions {\n    address = 127.0.0.1\n    port = ${smtpsPort}\n    ssl = yes\n  }\n}\n` +
      `submission_relay_host = 127.0.0.1\nsubmission_relay_port = ${relay.port}\nsubmission_relay_trusted = yes\n` +
      `service anvil {\n  chroot =\n}\nimap_idle_notify_interval = 1 secs\n`,
  );
  let dovecot: ReturnType<typeof Bun.spawn> | null = null;
  const spawn = async () => {
    dovecot = Bun.spawn([DOVECOT!, "-F", "-c", join(dir, "dovecot.conf")], { stdout: "ignore", stderr: "ignore" });
    await Promise.all([listeningOn(imapPort, "IMAP", 15_000), listeningOn(lmtpPort, "LMTP", 15_000), listeningOn(smtpPort, "submission", 15_000), listeningOn(smtpsPort, "submissions", 15_000)]);
  };
  const halt = async () => {
    dovecot?.kill("SIGTERM");
    await dovecot?.exited;
    dovecot = null;
  };
  await spawn();
  return {
    imapPort,
    smtpPort,
    smtpsPort,
    users,
    caFile: cert,
    stop: halt,
    restart: spawn,
    async close() {
      await halt();
      relay.stop(true);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A person with a mailbox on the servers: sends through submission, reads their INBOX over IMAP. */
export interface MailPerson {
  address: string;
  /** Send a mail (nodemailer's message fields); resolves with its Message-ID. */
  send(mail: Record<string, unknown>): Promise<string>;
  /** Every mail in the person's INBOX, parsed, oldest first. */
  inbox(): Promise<ParsedMail[]>;
  /** Wait until the INBOX holds mail matching `predicate`; returns the INBOX then. */
  waitFor(predicate: (mails: ParsedMail[]) => boolean, what: string, timeoutMs?: number): Promise<ParsedMail[]>;
}

export function mailPerson(servers: MailServers, user: MailUser): MailPerson {
  const tls = { ca: readFileSync(servers.caFile, "utf8") };
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port: servers.smtpPort, secure: false, requireTLS: true, tls, auth: { user: user.address, pass: user.password } });
  const inbox = async () => {
    const client = new ImapFlow({ host: "127.0.0.1", port: servers.imapPort, secure: false, tls, auth: { user: user.address, pass: user.password }, logger: false });
    // a dropped connection fails connect() or a command below; the event needs a listener all the same
    client.on("error", () => {});
    await client.connect();
    const mails: ParsedMail[] = [];
    try {
      const box = await client.mailboxOpen("INBOX");
      if (box.exists > 0) for await (const m of client.fetch("1:*", { source: true })) if (m.source) mails.push(await simpleParser(m.source));
    } finally {
      await client.logout();
    }
    return mails;
  };
  return {
    address: user.address,
    async send(mail) {
      const info = (await transport.sendMail({ from: user.address, ...mail })) as { messageId: string };
      return info.messageId;
    },
    inbox,
    async waitFor(predicate, what, timeoutMs) {
      let last: ParsedMail[] = [];
      await waitFor(
        async () => predicate((last = await inbox())),
        () => `${what}; ${user.address} has: ${last.map((m) => `[${m.subject}] ${m.text?.slice(0, 80)}`).join(" | ")}`,
        timeoutMs,
      );
      return last;
    },
  };
}
