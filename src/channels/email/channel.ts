import { readFileSync } from "node:fs";
import { ImapFlow, type FetchMessageObject, type FetchQueryObject, type ImapFlowOptions } from "imapflow";
import PostalMime, { type Email } from "postal-mime";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { PlatformChannel } from "../base.ts";
import { PlatformError } from "../platform-error.ts";
import { EMAIL_IDLE_AFTER_MS, EMAIL_MAX_MESSAGE_BYTES, EMAIL_MAX_MESSAGE_CHARS, EMAIL_POLL_INTERVAL_MS } from "../limits.ts";
import { keepConnected } from "../reconnect.ts";
import type { ChannelSetup, InboundAttachment, InboundMessage, OnMessage, OutboundReply } from "../types.ts";
import { fetchBatch } from "./batch.ts";
import type { SmtpSender } from "./smtp.ts";
import { attachmentBytes, headerSection, normalizeMail, parseAttachmentRef, replySubject, replyThreading, type MailContext, type ThreadHeaders } from "./wire.ts";

interface Server {
  host: string;
  port: number;
  /** TLS from the first byte; else STARTTLS, required. */
  implicit: boolean;
}

/** What one FETCH reads of a mail: enough to hand it over (a mail over the limit is read from the headers in it). */
const MAIL_QUERY: FetchQueryObject = { uid: true, flags: true, size: true, internalDate: true, source: { start: 0, maxLength: EMAIL_MAX_MESSAGE_BYTES } };

function serverOf(value: string, tls: "implicit" | "starttls" | undefined, implicitPort: number): Server {
  const colon = value.lastIndexOf(":");
  const port = Number(value.slice(colon + 1));
  return { host: value.slice(0, colon), port, implicit: tls ? tls === "implicit" : port === implicitPort };
}

/** An SMTP failure worth trying again: a 4xx answer or a dropped or refused connection (a 5xx is final). */
function smtpRetryable(error: unknown): boolean {
  const e = error as { responseCode?: number; code?: string };
  if (typeof e.responseCode === "number") return e.responseCode >= 400 && e.responseCode < 500;
  return ["ECONNECTION", "ETIMEDOUT", "ESOCKET", "EDNS", "ECONNRESET", "ECONNREFUSED"].includes(e.code ?? "");
}

/**
 * Email: new mail in `folder` (default INBOX) over IMAP, told by IDLE and searched again every EMAIL_POLL_INTERVAL_MS
 * (servers without IDLE are polled by NOOP); a mail IDLE announces alone is read in one FETCH of its sequence number,
 * anything else (several at once, one that turns out not to be new unseen mail, a new connection) by a search. Replies
 * go over SMTP submission (STARTTLS required, or implicit TLS; AUTH PLAIN or LOGIN as the server offers), threaded by
 * Message-ID, In-Reply-To and References, quoting nothing. A mail is flagged \Seen only once the runner settled it
 * (answered, refused or ignored): unseen mail is searched again on every connection, so a process killed mid-message
 * answers it after its restart, once (the store keys it by Message-ID). Mail that arrived before the channel's first
 * start is never answered (the cursor keeps the first UID to read).
 */
export class EmailChannel extends PlatformChannel {
  readonly kind = "email" as const;
  readonly capabilities = { edit: false, threads: true, maxMessageLength: EMAIL_MAX_MESSAGE_CHARS, typing: false };
  private readonly imap: Server;
  private readonly smtp: Server;
  private readonly address: string;
  private readonly username: string;
  private readonly folder: string;
  private readonly ca: string | undefined;
  private client: ImapFlow | null = null;
  private uidValidity = "";
  /** The first UID answered under uidValidity. */
  private floor = 1;
  /** Mail handed to the runner and not settled yet: by store id, its UID and what a reply to it needs. */
  private readonly open = new Map<string, { uid: number; thread: ThreadHeaders }>();
  private readonly openUids = new Set<number>();
  private sweeping: Promise<void> | null = null;
  private sweepAgain = false;
  /** Sequence numbers IDLE announced one at a time, not read yet. */
  private readonly arrived: number[] = [];
  private sender: SmtpSender | null = null;
  private compose: typeof import("./compose.ts") | null = null;

  constructor(setup: ChannelSetup) {
    super(setup);
    const { imap_server, smtp_server, address } = setup.config;
    if (!imap_server || !smtp_server || !address) {
      throw new PrxError("CHANNEL_CONFIG", `channel ${this.name}: email needs imap_server, smtp_server and address`, {
        hint: `set imap_server = "imap.example.com:993", smtp_server = "smtp.example.com:587", address = "bot@example.com" and secret_env = "EMAIL_PASSWORD" in [channels.${this.name}]`,
      });
    }
    this.imap = serverOf(imap_server, setup.config.imap_tls, 993);
    this.smtp = serverOf(smtp_server, setup.config.smtp_tls, 465);
    this.address = address;
    this.username = setup.config.username ?? address;
    this.folder = setup.config.folder ?? "INBOX";
    this.ca = setup.config.ca_file ? readFileSync(setup.config.ca_file, "utf8") : undefined;
  }

  private password(): string {
    return this.requireSecret("secret_env", "mail password", "EMAIL_PASSWORD");
  }

  private tls(host: string): { servername?: string; ca?: string; minVersion: "TLSv1.2" } {
    return { ...(/^[\d.]+$|:/.test(host) ? {} : { servername: host }), ...(this.ca ? { ca: this.ca } : {}), minVersion: "TLSv1.2" };
  }

  async start(onMessage: OnMessage): Promise<void> {
    this.password();
    let opened!: () => void;
    const first = new Promise<void>((resolve) => (opened = resolve));
    this.loop = keepConnected({
      what: "IMAP connection",
      connection: (connected) =>
        this.connection(onMessage, () => {
          connected();
          opened();
        }),
      onEnded: (why) => (this.state = { ok: false, detail: `reconnecting: ${why}` }),
      logger: this.setup.logger,
      signal: this.stopper.signal,
    });
    await this.firstConnection(first);
  }

  private imapOptions(): ImapFlowOptions & { doSTARTTLS?: boolean } {
    return {
      host: this.imap.host,
      port: this.imap.port,
      secure: this.imap.implicit,
      doSTARTTLS: !this.imap.implicit,
      tls: this.tls(this.imap.host),
      auth: { user: this.username, pass: this.password() },
      logger: false,
      connectionTimeout: this.limits.requestTimeoutMs,
      greetingTimeout: this.limits.requestTimeoutMs,
    };
  }

  /** One IMAP connection with the folder selected; resolves with why it ended. */
  private async connection(onMessage: OnMessage, onOpen: () => void): Promise<string> {
    const client = new ImapFlow({ ...this.imapOptions(), autoIdleDelay: EMAIL_IDLE_AFTER_MS });
    let closed!: (why: string) => void;
    const ended = new Promise<string>((resolve) => (closed = resolve));
    client.on("close", () => closed("connection closed"));
    client.on("error", (error: unknown) => closed(errorMessage(error)));
    const abort = () => client.close();
    this.stopper.signal.addEventListener("abort", abort, { once: true });
    let timer: ReturnType<typeof setInterval> | undefined;
    try {
      await client.connect();
      const mailbox = await client.mailboxOpen(this.folder);
      this.state = { ok: true, detail: `${this.username} on ${this.imap.host}, ${this.folder}` };
      onOpen();
      // the cursor is read once the workspace is open, after the first connection
      await this.startAt(String(mailbox.uidValidity), mailbox.uidNext);
      this.client = client;
      client.on("exists", (data: { count: number; prevCount: number }) => this.sweep(onMessage, data.count === data.prevCount + 1 ? data.count : undefined));
      timer = setInterval(() => this.sweep(onMessage), EMAIL_POLL_INTERVAL_MS);
      this.sweep(onMessage);
      return await ended;
    } catch (error) {
      client.close();
      return `IMAP: ${errorMessage(error)}`;
    } finally {
      clearInterval(timer);
      this.stopper.signal.removeEventListener("abort", abort);
      if (this.client === client) this.client = null;
    }
  }

  /** The cursor (`<UIDVALIDITY>:<first UID>`): kept while the folder's UIDVALIDITY stays, else started over at UIDNEXT. */
  private async startAt(uidValidity: string, uidNext: number): Promise<void> {
    const saved = /^(\d+):(\d+)$/.exec((await this.setup.cursor.get()) ?? "");
    if (saved && saved[1] === uidValidity) {
      this.floor = Number(saved[2]);
    } else {
      if (saved) this.setup.logger.warn(`email: ${this.folder} was renumbered (UIDVALIDITY ${saved[1]} -> ${uidValidity}); answering mail from now on`);
      this.floor = uidNext;
      await this.setup.cursor.set(`${uidValidity}:${uidNext}`);
    }
    if (uidValidity !== this.uidValidity) {
      this.open.clear();
      this.openUids.clear();
    }
    this.uidValidity = uidValidity;
  }

  /**
   * Read the unseen mail not handed over yet: the one mail at sequence number `arrived`, else all of it by a search. One
   * read at a time: what is asked for meanwhile runs once this one ends (a search standing in for any single reads).
   */
  private sweep(onMessage: OnMessage, arrived?: number): void {
    if (arrived === undefined) this.sweepAgain = true;
    else this.arrived.push(arrived);
    if (this.sweeping) return;
    const failed = (error: unknown) => this.setup.logger.warn(`email: reading ${this.folder} failed: ${errorMessage(error)}`);
    this.sweeping = (async () => {
      while ((this.sweepAgain || this.arrived.length > 0) && !this.stopper.signal.aborted) {
        if (this.sweepAgain) {
          this.sweepAgain = false;
          this.arrived.length = 0;
          await this.readUnseen(onMessage).catch(failed);
        } else if (!(await this.readArrived(onMessage, this.arrived.shift()!).catch((error: unknown) => (failed(error), false)))) {
          this.sweepAgain = true;
        }
      }
    })().finally(() => (this.sweeping = null));
  }

  /** The mail at sequence number `seq`, read in one FETCH and handed over; false when it is not new unseen mail. */
  private async readArrived(onMessage: OnMessage, seq: number): Promise<boolean> {
    const client = this.client;
    if (!client) return true;
    await this.setup.waitForCapacity?.();
    const [mail] = await this.fetchMails(client, String(seq), false);
    if (!mail || mail.uid < this.floor || mail.flags?.has("\\Seen") || this.openUids.has(mail.uid)) return false;
    await this.hand(client, mail, onMessage);
    return true;
  }

  private async fetchMails(client: ImapFlow, range: string, byUid: boolean): Promise<FetchMessageObject[]> {
    const mails: FetchMessageObject[] = [];
    for await (const mail of client.fetch(range, MAIL_QUERY, { uid: byUid })) mails.push(mail);
    return mails;
  }

  private async readUnseen(onMessage: OnMessage): Promise<void> {
    const client = this.client;
    if (!client) return;
    const found = (await client.search({ seen: false, uid: `${this.floor}:*` }, { uid: true })) || [];
    // "N:*" names the last message even when its UID is below N
    const uids = found.filter((uid) => uid >= this.floor && !this.openUids.has(uid)).sort((a, b) => a - b);
    const { batch, more } = fetchBatch(uids);
    if (more) this.sweepAgain = true;
    for (const uid of batch) {
      if (this.stopper.signal.aborted || this.client !== client) return;
      await this.setup.waitForCapacity?.();
      const [mail] = await this.fetchMails(client, String(uid), true);
      if (mail) await this.hand(client, mail, onMessage);
    }
  }

  /** A fetched mail to the runner; it stays unseen until settled (one without a sender is marked seen now). */
  private async hand(client: ImapFlow, mail: FetchMessageObject, onMessage: OnMessage): Promise<void> {
    const uid = mail.uid;
    const read = await this.read(mail);
    if (!read) {
      // nobody to answer (no sender): nothing will settle it
      await client.messageFlagsAdd(String(uid), ["\\Seen"], { uid: true });
      this.setup.logger.warn(`email: mail ${uid} in ${this.folder} has no sender; marked seen unanswered`);
      return;
    }
    this.open.set(read.message.id, { uid, thread: read.thread });
    this.openUids.add(uid);
    try {
      await onMessage(read.message);
    } catch (error) {
      // not stored: the next search reads it again
      this.open.delete(read.message.id);
      this.openUids.delete(uid);
      throw error;
    }
  }

  /** One fetched mail, parsed and normalised; one over EMAIL_MAX_MESSAGE_BYTES is read from its headers only. */
  private async read(mail: FetchMessageObject): Promise<{ message: InboundMessage; thread: ThreadHeaders } | undefined> {
    const received = mail.internalDate instanceof Date ? mail.internalDate.getTime() : Date.now();
    const ctx = { channel: this.name, me: this.address, uid: mail.uid, uidValidity: this.uidValidity, receivedAt: received };
    const source = mail.source ?? new Uint8Array(0);
    const size = mail.size ?? source.byteLength;
    if (size > EMAIL_MAX_MESSAGE_BYTES) {
      const read = normalizeMail(await PostalMime.parse(headerSection(source)), ctx);
      if (read) read.message.text = `[an email of ${size} bytes arrived, over the limit of ${EMAIL_MAX_MESSAGE_BYTES}; it was not read]`;
      return read;
    }
    return this.normalize(await PostalMime.parse(source), ctx);
  }

  private async parse(client: ImapFlow, uid: number): Promise<Email> {
    const full = await client.fetchOne(String(uid), { uid: true, source: true }, { uid: true });
    if (!full || !full.source) throw new PlatformError("email", `mail ${uid} is gone from ${this.folder}`, null, false);
    return PostalMime.parse(full.source);
  }

  /** normalizeMail, with an HTML-only mail read as Markdown (node-html-markdown, loaded only for such mail). */
  private async normalize(mail: Email, ctx: MailContext): Promise<ReturnType<typeof normalizeMail>> {
    const htmlOnly = !mail.text?.trim() && typeof mail.html === "string";
    const htmlText = htmlOnly ? (await import("node-html-markdown")).NodeHtmlMarkdown.translate(mail.html!) : "";
    return normalizeMail(mail, ctx, htmlText);
  }

  /** The runner is done with a mail (answered, refused or ignored): it is flagged \Seen. */
  async settled(message: InboundMessage): Promise<void> {
    const client = this.client;
    const open = this.open.get(message.id);
    try {
      if (!client) throw new Error("not connected (reconnecting)");
      const uid = open?.uid ?? (await this.uidOf(client, message.id));
      if (uid !== undefined) await client.messageFlagsAdd(String(uid), ["\\Seen"], { uid: true });
      this.open.delete(message.id);
      if (open) this.openUids.delete(open.uid);
    } catch (error) {
      // still unseen: the next search reads it again, and the store (answered once) settles it then
      if (open) this.openUids.delete(open.uid);
      this.open.delete(message.id);
      this.setup.logger.warn(`email: could not mark ${message.id} seen (${errorMessage(error)}); it is settled again after the next search`);
    }
  }

  /** The UID of a Message-ID in the folder (a message resumed after a restart that no search has read yet). */
  private async uidOf(client: ImapFlow, id: string): Promise<number | undefined> {
    if (!/^<[^<>\s]+>$/.test(id) || id.startsWith("<sha256.") || id.startsWith("<uid.")) {
      const uid = /^<uid\.(\d+)\.(\d+)@prx>$/.exec(id);
      return uid && uid[1] === this.uidValidity ? Number(uid[2]) : undefined;
    }
    const found = (await client.search({ header: { "message-id": id } }, { uid: true })) || [];
    return found.at(-1);
  }

  /** What a reply to `id` needs: from the mail handed over, else from the folder (a reply resumed after a restart). */
  private async threadOf(id: string): Promise<ThreadHeaders | undefined> {
    const open = this.open.get(id);
    if (open) return open.thread;
    const client = this.client;
    if (!client) return undefined;
    const uid = await this.uidOf(client, id);
    if (uid === undefined) return undefined;
    const ctx = { channel: this.name, me: this.address, uid, uidValidity: this.uidValidity, receivedAt: Date.now() };
    return normalizeMail(await this.parse(client, uid), ctx)?.thread;
  }

  async send(reply: OutboundReply): Promise<string> {
    const thread = reply.replyTo
      ? await this.threadOf(reply.replyTo).catch((error: unknown) => {
          this.setup.logger.warn(`email: the mail ${reply.replyTo} could not be read for its thread (${errorMessage(error)}); the reply names it alone`);
          return undefined;
        })
      : undefined;
    const threading = thread
      ? replyThreading(thread)
      : reply.replyTo && /^<[^<>\s]+>$/.test(reply.replyTo)
        ? { inReplyTo: reply.replyTo, references: [reply.replyTo] }
        : undefined;
    const mail = {
      from: this.address,
      to: reply.chatId,
      subject: thread ? replySubject(thread.subject) : reply.replyTo ? "Re: your message" : "A message from your assistant",
      text: reply.text,
      ...(threading ? { inReplyTo: threading.inReplyTo, references: threading.references } : {}),
    };
    const sender = await this.smtpSender();
    let envelope: { from: string; to: string; raw: string; messageId: string };
    try {
      const { composeReply, plainAddress } = this.compose!;
      const from = plainAddress(this.address);
      const messageId = `<${crypto.randomUUID()}@${from.slice(from.lastIndexOf("@") + 1)}>`;
      envelope = { from, to: plainAddress(reply.chatId), raw: composeReply(mail, messageId, Date.now()), messageId };
    } catch (error) {
      throw new PlatformError("email", `the reply to ${reply.chatId} cannot be written: ${errorMessage(error)}`, null, false, undefined, error);
    }
    await this.retrying("SMTP send", async () => {
      try {
        await sender.send(envelope.from, envelope.to, envelope.raw);
      } catch (error) {
        throw new PlatformError("email", `SMTP: ${errorMessage(error)}`, null, smtpRetryable(error), undefined, error);
      }
    });
    return envelope.messageId;
  }

  /** The SMTP client, made at the first reply: it loads only then. */
  private async smtpSender(): Promise<SmtpSender> {
    if (this.sender) return this.sender;
    const [{ SmtpSender }, compose] = await Promise.all([import("./smtp.ts"), import("./compose.ts")]);
    this.compose = compose;
    this.sender ??= new SmtpSender(
      {
        host: this.smtp.host,
        port: this.smtp.port,
        secure: this.smtp.implicit,
        requireTLS: !this.smtp.implicit,
        tls: this.tls(this.smtp.host),
        connectionTimeout: this.limits.requestTimeoutMs,
        greetingTimeout: this.limits.requestTimeoutMs,
        socketTimeout: this.limits.requestTimeoutMs,
      },
      () => ({ user: this.username, pass: this.password() }),
    );
    return this.sender;
  }

  async fetchAttachment(attachment: InboundAttachment, maxBytes: number): Promise<Uint8Array> {
    const ref = parseAttachmentRef(attachment.ref);
    const client = this.client;
    if (!ref) throw new PlatformError("email", `not an attachment of this channel: ${attachment.ref}`, null, false);
    if (!client) throw new PlatformError("email", "not connected (reconnecting)", null, true);
    if (ref.uidValidity !== this.uidValidity) throw new PlatformError("email", `${this.folder} was renumbered since the mail arrived`, null, false);
    const part = (await this.parse(client, ref.uid)).attachments[ref.index];
    if (!part) throw new PlatformError("email", `mail ${ref.uid} has no attachment ${ref.index}`, null, false);
    const bytes = attachmentBytes(part);
    if (bytes > maxBytes) throw new PlatformError("email", `the attachment is ${bytes} bytes, over the limit of ${maxBytes}`, null, false);
    return typeof part.content === "string" ? new TextEncoder().encode(part.content) : new Uint8Array(part.content as ArrayBuffer);
  }

  override async stop(): Promise<void> {
    await super.stop();
    this.sender?.close();
  }

  /** IMAP login and logout, then SMTP connection, AUTH and QUIT: nothing is read or sent. */
  async checkCredentials(): Promise<string> {
    const refused = (what: string, error: unknown) =>
      new PrxError("CHANNEL_PLATFORM", `email: ${what}: ${(error as { responseText?: string }).responseText ?? errorMessage(error)}`, {
        cause: error,
        hint: `check username (or address), the password in secret_env, the server, its TLS mode and ca_file in [channels.${this.name}]`,
      });
    const { host, port } = this.imap;
    const client = new ImapFlow(this.imapOptions());
    client.on("error", () => undefined); // the failure is the rejected connect() below
    try {
      await client.connect();
      await client.logout();
    } catch (error) {
      client.close();
      throw refused(`IMAP login as ${this.username} on ${host}:${port}`, error);
    }
    try {
      await (await this.smtpSender()).verify();
    } catch (error) {
      throw refused(`SMTP login as ${this.username} on ${this.smtp.host}:${this.smtp.port}`, error);
    }
    return `${this.username}: IMAP ${host}:${port} and SMTP ${this.smtp.host}:${this.smtp.port} accepted the login`;
  }
}
