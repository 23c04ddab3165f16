/**
 * Real mail servers for the email channel's tests, on 127.0.0.1 with throw-away configuration in a temporary
 * directory: Dovecot (Debian `dovecot-imapd`, `dovecot-lmtpd`, `dovecot-submissiond`) serves IMAP (STARTTLS), SMTP
 * submission (STARTTLS on one port, implicit TLS on another; AUTH PLAIN/LOGIN only over TLS) and LMTP, and relays
 * what is submitted to its own LMTP, which delivers into per-user maildirs. A test sends mail to the bot through the
 * submission server as a person and reads the bot's replies from that person's mailbox over IMAP.
 * Dovecot's submission relays over SMTP and its LMTP greets only LHLO: a small relay between them turns the EHLO into
 * LHLO and passes everything else through (one recipient per message, where LMTP's answers match SMTP's).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  /** Mails submitted and passed on to delivery: sender, and when the end of their DATA went through (wall clock, ms). */
  relayed: Array<{ from: string; at: number }>;
  /**
   * With `rawlog`: Dovecot's own record of a user's IMAP sessions, each line as the server read or wrote
   * it with its wall-clock time (Dovecot's rawlog, -t); empty without.
   */
  rawlog(user: MailUser, direction: "in" | "out"): Array<{ at: number; line: string }>;
}

async function run(argv: string[]): Promise<string> {
  const proc = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}: ${err}`);
  return out;
}

/**
 * A TCP relay to `lmtpPort` that sends the client's EHLO as LHLO. Each mail it passes on is noted in `relayed`: its
 * sender and the wall-clock time (ms) it went through (its BDAT LAST, or its DATA's closing ".").
 */
function lhloRelay(lmtpPort: number, relayed: Array<{ from: string; at: number }>): { port: number; stop(closeActive: boolean): void } {
  type Pair = { upstream: Promise<import("bun").Socket<undefined>>; greeted: boolean; tail: string; from: string };
  return Bun.listen<Pair>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        client.data = {
          greeted: false,
          tail: "",
          from: "",
          upstream: Bun.connect({
            hostname: "127.0.0.1",
            port: lmtpPort,
            socket: { data: (_s, chunk) => void client.write(chunk), close: () => void client.end() },
          }),
        };
      },
      async data(client, chunk) {
        const at = performance.timeOrigin + performance.now();
        let bytes: Uint8Array = chunk;
        const text = new TextDecoder().decode(chunk);
        if (!client.data.greeted) {
          if (/^EHLO /i.test(text)) {
            client.data.greeted = true;
            bytes = new TextEncoder().encode(text.replace(/^EHLO /i, "LHLO "));
          }
        }
        const seen = (client.data.tail + text).slice(-4096);
        client.data.from = /MAIL FROM:<([^>]*)>/i.exec(seen)?.[1] ?? client.data.from;
        // Dovecot's submission passes a whole mail on at once, as one BDAT ... LAST when the next hop offers CHUNKING
        if (/\r\n\.\r\n$/.test(seen) || /^BDAT \d+ LAST\r\n/m.test(text)) relayed.push({ from: client.data.from, at });
        client.data.tail = seen.slice(-8);
        (await client.data.upstream).write(bytes);
      },
      async close(client) {
        (await client.data.upstream.catch(() => null))?.end();
      },
    },
  });
}

export async function startMailServers(users: MailUser[], options: { rawlog?: boolean } = {}): Promise<MailServers> {
  if (!DOVECOT) throw new Error("Dovecot is not installed (apt-get install dovecot-imapd dovecot-lmtpd dovecot-submissiond)");
  const dir = mkdtempSync(join(tmpdir(), "prx-channels-mail-"));
  // Dovecot delivers as nobody, and the login processes run as dovenull: they must reach the directory
  chmodSync(dir, 0o755);
  const mail = join(dir, "mail");
  mkdirSync(mail);
  chmodSync(mail, 0o777);
  const [imapPort, lmtpPort, smtpPort, smtpsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const relayed: Array<{ from: string; at: number }> = [];
  const relay = lhloRelay(lmtpPort, relayed);
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
      `service anvil {\n  chroot =\n}\nimap_idle_notify_interval = 1 secs\n` +
      // https://doc.dovecot.org/2.3/admin_manual/debugging/debugging_rawlog/: the post-login rawlog writes
      // <home>/dovecot.rawlog/<time>-<pid>.{in,out}; -t puts the time of each read or write before its line
      (options.rawlog
        ? `service imap {\n  executable = imap postlogin\n}\n` +
          `service postlogin {\n  executable = script-login -d rawlog -t\n  unix_listener postlogin {\n  }\n}\n`
        : ""),
  );
  if (options.rawlog) for (const u of users) mkdirSync(join(mail, u.address, "dovecot.rawlog"), { recursive: true, mode: 0o777 });
  if (options.rawlog) for (const u of users) chmodSync(join(mail, u.address), 0o777), chmodSync(join(mail, u.address, "dovecot.rawlog"), 0o777);
  let dovecot: ReturnType<typeof Bun.spawn> | null = null;
  const logTail = () => (existsSync(join(dir, "dovecot.log")) ? readFileSync(join(dir, "dovecot.log"), "utf8").split("\n").slice(-20).join("\n") : "(no log)");
  const spawn = async () => {
    const proc = Bun.spawn([DOVECOT!, "-F", "-c", join(dir, "dovecot.conf")], { stdout: "ignore", stderr: "pipe" });
    dovecot = proc;
    const stderr = new Response(proc.stderr).text();
    const listening = Promise.all([listeningOn(imapPort, "IMAP", 15_000), listeningOn(lmtpPort, "LMTP", 15_000), listeningOn(smtpPort, "submission", 15_000), listeningOn(smtpsPort, "submissions", 15_000)]);
    const exited = proc.exited.then(async (code) => {
      throw new Error(`Dovecot exited (${code}) before it listened: ${(await stderr).trim()}`);
    });
    try {
      await Promise.race([listening, exited]);
    } catch (error) {
      proc.kill("SIGKILL");
      throw new Error(`${(error as Error).message}\nDovecot's log (${dir}/dovecot.log):\n${logTail()}`);
    }
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
    relayed,
    stop: halt,
    restart: spawn,
    rawlog(user, direction) {
      const dir = join(mail, user.address, "dovecot.rawlog");
      const entries: Array<{ at: number; line: string }> = [];
      for (const file of readdirSync(dir).filter((f) => f.endsWith(`.${direction}`))) {
        for (const raw of readFileSync(join(dir, file), "utf8").split("\n")) {
          const m = /^(\d+)\.(\d+) (.*)$/.exec(raw.replace(/\r$/, ""));
          if (m) entries.push({ at: Number(m[1]) * 1000 + Number(m[2]) / 10 ** (m[2]!.length - 3), line: m[3]! });
        }
      }
      return entries.sort((a, b) => a.at - b.at);
    },
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
