/**
 * The email channel's rows of `bun run bench channels`, against a real Dovecot (IMAP with IDLE, SMTP submission,
 * LMTP delivery) on 127.0.0.1:
 * - the channel's own overhead: Dovecot announcing the mail to the channel's IDLE (`* N EXISTS`, timed by Dovecot's
 *   rawlog of the session) -> the end of the reply's DATA passed on by Dovecot's submission (its relay to delivery is
 *   this process's), minus the provider's time; and the same interval for a bare client measured in the same run (the
 *   floor: imapflow and nodemailer alone fetch the new mail after the IDLE notice and submit a reply over an open,
 *   authenticated SMTP connection, see bareClient), each right after one of prx's mails, so that the row with the
 *   target is prx's part: the median of the paired differences;
 * - the whole round trip a person sees: mail submitted -> the reply in the person's INBOX (told by the person's own
 *   IDLE), minus the provider's time. It includes two submissions and deliveries by the mail server and two IDLE
 *   notices, each of which Dovecot holds for 500 ms after inotify tells it of the change (NOTIFY_DELAY_MSECS in
 *   src/lib-storage/mailbox-watch.c, a constant: no setting shortens it; `mailbox_idle_check_interval` is only the
 *   fallback poll where inotify does not work);
 * - the channel process's RSS against an idle gateway's.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ImapFlow } from "imapflow";
import nodemailer from "nodemailer";
import { handledByLastText } from "../fakes/common.ts";
import type { FakeServer } from "../fakes/openai-server.ts";
import { DOVECOT, mailPerson, startMailServers, type MailServers, type MailUser } from "../helpers/mail-servers.ts";
import { waitFor } from "../helpers/wait.ts";
import { overheadRow, rssRow } from "./channel-platforms.ts";
import { rssMb } from "./channel-bursts.ts";
import { stats, type BenchRow } from "./types.ts";

const BOT = { address: "bot@example.test", password: "bot-secret" };
const ANN = { address: "ann@example.test", password: "ann-secret" };
/** The bare client's mailbox (the floor). */
const FLOOR = { address: "floor@example.test", password: "floor-secret" };

/**
 * When Dovecot announced mail sent at or after `wall0` to `user`'s IDLE -> when `user`'s reply to it went through
 * (`total`), and of that the IMAP part: the announcement -> the end of the last FETCH answered before the reply (`imap`).
 */
async function replyInterval(servers: MailServers, user: MailUser, wall0: number): Promise<{ total: number; imap: number }> {
  // Dovecot writes its rawlog a moment after the line went out
  let announced: { at: number } | undefined;
  for (const until = Date.now() + 5000; !announced && Date.now() < until; await Bun.sleep(5)) announced = servers.rawlog(user, "out").find((e) => e.at >= wall0 && /^\* \d+ EXISTS$/.test(e.line));
  let submitted: { at: number } | undefined;
  for (const until = Date.now() + 5000; announced && !submitted && Date.now() < until; await Bun.sleep(5)) submitted = servers.relayed.find((r) => r.from === user.address && r.at >= announced.at);
  if (!announced || !submitted) throw new Error(`no IDLE notice to ${user.address} or no reply relayed after ${new Date(wall0).toISOString()}`);
  const fetched = servers.rawlog(user, "out").filter((e) => e.at >= announced.at && e.at <= submitted.at && /^\S+ OK .*Fetch completed/i.test(e.line)).at(-1);
  return { total: submitted.at - announced.at, imap: (fetched?.at ?? announced.at) - announced.at };
}

/**
 * The floor: imapflow and nodemailer with nothing of prx, logged in as FLOOR with IDLE as the channel is, fetch each
 * new mail (UID and source in one FETCH of the sequence number the EXISTS names) and submit a reply over a pooled SMTP
 * connection opened and authenticated before the first mail. No parsing, no store, no turn.
 */
async function bareClient(servers: MailServers, to: string): Promise<{ stop(): Promise<void> }> {
  const tls = { ca: await Bun.file(servers.caFile).text() };
  const client = new ImapFlow({ host: "127.0.0.1", port: servers.imapPort, secure: false, tls, auth: { user: FLOOR.address, pass: FLOOR.password }, logger: false, autoIdleDelay: 50 });
  client.on("error", () => {});
  const smtp = nodemailer.createTransport({ pool: true, maxConnections: 1, host: "127.0.0.1", port: servers.smtpPort, secure: false, requireTLS: true, tls, auth: { user: FLOOR.address, pass: FLOOR.password } });
  await client.connect();
  await client.mailboxOpen("INBOX");
  // the pool opens its connection with the first mail: one sent before the measured ones
  await smtp.sendMail({ from: FLOOR.address, to: FLOOR.address, subject: "warm-up", text: "warm-up" });
  client.on("exists", (data: { count: number }) => {
    void (async () => {
      const mail = await client.fetchOne(String(data.count), { uid: true, source: true });
      const subject = mail && mail.source ? (/^Subject: (.*)$/m.exec(mail.source.toString("latin1"))?.[1] ?? "") : "";
      if (subject.startsWith("latency ")) await smtp.sendMail({ from: FLOOR.address, to, subject: `Re: ${subject}`, text: "echo", headers: { "Auto-Submitted": "auto-replied" } });
    })().catch(() => undefined);
  });
  return {
    async stop() {
      smtp.close();
      await client.logout().catch(() => client.close());
    },
  };
}

export async function emailRows(o: { binary: string; tmp: string; provider: FakeServer; messages: number; idleMs: number }): Promise<BenchRow[]> {
  if (!DOVECOT) {
    console.log("  email: Dovecot is not installed (apt-get install dovecot-imapd dovecot-lmtpd dovecot-submissiond); its rows are left out");
    return [];
  }
  const servers = await startMailServers([BOT, ANN, FLOOR], { rawlog: true });
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: o.tmp, MAIL_PASSWORD: BOT.password };
  writeFileSync(
    join(o.tmp, "config.toml"),
    `default_provider = "fake"\nautonomy = { level = "full" }\ndefault_model = "fake-model"\n[providers.fake]\nkind = "openai-compatible"\nbase_url = "${o.provider.url}"\n` +
      `[reliability]\nretries = 0\n[memory]\nauto_recall = false\n` +
      `[channels.mail]\nkind = "email"\nimap_server = "127.0.0.1:${servers.imapPort}"\nsmtp_server = "127.0.0.1:${servers.smtpPort}"\n` +
      `address = "${BOT.address}"\nsecret_env = "MAIL_PASSWORD"\nca_file = "${servers.caFile}"\ndm_policy = "open"\n`,
  );
  const children: Array<ReturnType<typeof Bun.spawn>> = [];
  const watcher = new ImapFlow({ host: "127.0.0.1", port: servers.imapPort, secure: false, tls: { ca: await Bun.file(servers.caFile).text() }, auth: { user: ANN.address, pass: ANN.password }, logger: false, autoIdleDelay: 20 });
  watcher.on("error", () => {});
  let floorClient: { stop(): Promise<void> } | undefined;
  try {
    const channel = Bun.spawn([o.binary, "channel", "run", "mail", "-w", o.tmp], { env, stdout: "pipe", stderr: "ignore" });
    children.push(channel);
    const reader = (channel.stdout as ReadableStream<Uint8Array>).getReader();
    let out = "";
    while (!out.includes("running: bot@example.test")) out += new TextDecoder().decode((await reader.read()).value);
    await watcher.connect();
    let exists = (await watcher.mailboxOpen("INBOX")).exists;
    const arrivals: number[] = [];
    watcher.on("exists", (data: { count: number }) => {
      for (let i = exists; i < data.count; i++) arrivals.push(performance.now());
      exists = data.count;
    });
    const ann = mailPerson(servers, ANN);
    floorClient = await bareClient(servers, ANN.address);
    const overheads: number[] = [];
    const own: number[] = [];
    const floors: number[] = [];
    const parts: number[] = [];
    /** Of each paired difference, the IMAP part (the notice -> the end of the FETCH that read the mail). */
    const imapParts: number[] = [];
    for (let i = 0; i < o.messages + 3; i++) {
      const text = `latency ${i}`;
      const before = arrivals.length;
      const t0 = performance.now();
      const wall0 = Date.now();
      await ann.send({ to: BOT.address, subject: text, text });
      await waitFor(() => arrivals.length > before, "the reply in the INBOX");
      const handled = handledByLastText(o.provider).find(([t]) => t.endsWith(text))?.[1] ?? 0;
      // the bot's IDLE session as Dovecot logged it, and its reply passed on
      const bot = await replyInterval(servers, BOT, wall0);
      const measured = bot.total - handled;
      // the same mail to the bare client, right after: the pair sees the same load
      const floorWall0 = Date.now();
      const floorBefore = arrivals.length;
      await ann.send({ to: FLOOR.address, subject: text, text });
      await waitFor(() => arrivals.length > floorBefore, "the bare client's reply in the INBOX");
      const bare = await replyInterval(servers, FLOOR, floorWall0);
      const floor = bare.total;
      if (i >= 3) {
        // the first turns warm the JIT up
        overheads.push(arrivals[before]! - t0 - handled);
        own.push(measured);
        floors.push(floor);
        parts.push(measured - floor);
        imapParts.push(bot.imap - bare.imap);
      }
    }
    const s = stats(overheads);
    const mine = stats(own);
    const floor = stats(floors);
    const part = stats(parts);
    Bun.gc(true);
    await Bun.sleep(1500);
    const channelRss = rssMb(channel.pid);
    channel.kill("SIGTERM");
    await channel.exited;
    const gateway = Bun.spawn([o.binary, "gateway", "--port", "0", "-w", o.tmp], { env, stdout: "pipe", stderr: "ignore" });
    children.push(gateway);
    const g = (gateway.stdout as ReadableStream<Uint8Array>).getReader();
    let gout = "";
    while (!/pairing code: ([A-Z2-9]{8})/.test(gout)) gout += new TextDecoder().decode((await g.read()).value);
    await Bun.sleep(o.idleMs);
    const gatewayRss = rssMb(gateway.pid);
    return [
      {
        suite: "channels",
        name: `${overheadRow("email")}: prx's part (measured minus a bare imapflow + nodemailer client's floor)`,
        value: part.p50,
        unit: "ms",
        target: { op: "<=", value: 5 },
        note: `p99 ${part.p99.toFixed(1)} ms; median of ${o.messages} paired differences, ${stats(imapParts).p50.toFixed(1)} ms of it in IMAP (the notice -> the FETCH that read the mail answered); measured p50 ${mine.p50.toFixed(1)} ms (p99 ${mine.p99.toFixed(1)}), floor p50 ${floor.p50.toFixed(1)} ms (p99 ${floor.p99.toFixed(1)}): Dovecot's IDLE notice to the bot -> the reply's DATA passed on by Dovecot's submission, minus provider time`,
      },
      {
        suite: "channels",
        name: "email: IDLE notice -> reply submitted, prx measured (before the floor is taken off), p50",
        value: mine.p50,
        unit: "ms",
        note: `p99 ${mine.p99.toFixed(1)} ms; minus provider time`,
      },
      {
        suite: "channels",
        name: "email: IDLE notice -> reply submitted, bare imapflow + nodemailer client (the floor), p50",
        value: floor.p50,
        unit: "ms",
        note: `p99 ${floor.p99.toFixed(1)} ms; each right after one of prx's mails: one FETCH of UID and source, a reply over an open pooled SMTP connection, nothing else`,
      },
      {
        suite: "channels",
        name: "email: mail submitted -> reply in the person's INBOX, minus provider time, p50",
        value: s.p50,
        unit: "ms",
        note: `p99 ${s.p99.toFixed(1)} ms; two submissions and LMTP deliveries by Dovecot, two IDLE notices it holds 500 ms each (not settable)`,
      },
      {
        suite: "channels",
        name: rssRow("email"),
        value: channelRss / gatewayRss,
        unit: "count",
        target: { op: "<=", value: 1.5 },
        note: `channel ${channelRss.toFixed(1)} MB after ${o.messages + 3} turns, gateway idle ${gatewayRss.toFixed(1)} MB`,
      },
    ];
  } finally {
    await floorClient?.stop();
    await watcher.logout().catch(() => watcher.close());
    for (const child of children) child.kill("SIGKILL");
    await Promise.all(children.map((child) => child.exited));
    await servers.close();
  }
}

/** `bun test/bench/channel-email.ts <binary> [messages]`: the email rows alone (A/B runs of two builds). */
if (import.meta.main) {
  const { mkdtempSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { resolve } = await import("node:path");
  const { startFakeOpenAI } = await import("../fakes/openai-server.ts");
  const [binary, messages = "50"] = process.argv.slice(2);
  if (!binary) {
    console.error("usage: bun test/bench/channel-email.ts <binary> [messages]");
    process.exit(2);
  }
  const tmp = mkdtempSync(join(tmpdir(), "prx-email-"));
  const provider = startFakeOpenAI({ latencyMs: 5 });
  try {
    const rows = await emailRows({ binary: resolve(binary), tmp, provider, messages: Number(messages), idleMs: 3000 });
    for (const row of rows) console.log(`${row.name}: ${row.value.toFixed(2)} ${row.unit} (${row.note ?? ""})`);
  } finally {
    await provider.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
