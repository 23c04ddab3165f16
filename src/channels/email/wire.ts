/**
 * Email as the channel reads and writes it: a message parsed by postal-mime (RFC 5322 headers, MIME multipart, RFC 2047
 * words, charsets through TextDecoder) normalised to the inbound shape, and the threading headers of a reply (RFC 5322
 * section 3.6.4: In-Reply-To is the parent's Message-ID, References the parent's References followed by it); a
 * header's identifiers are read as the `<...>` in it, comments and all. Automatic mail (RFC 3834
 * Auto-Submitted, Precedence bulk/junk/list, mailing lists, bounces) counts as sent by a bot, so the bot never
 * answers an auto-responder or a bounce.
 */
import type { Address, Attachment, Email } from "postal-mime";
import { sha256Hex } from "../../core/ids.ts";
import { CHANNEL_MAX_ATTACHMENTS } from "../limits.ts";
import type { InboundAttachment, InboundMessage } from "../types.ts";

/** What a reply needs of the message it answers. */
export interface ThreadHeaders {
  messageId: string;
  subject: string;
  /** The parent's References (oldest first), without the parent itself. */
  references: string[];
}

const ID_MAX = 256;

/** A Message-ID as the store keys it: as written, bracketed; one too long for a key is named by its hash. */
export function messageKey(messageId: string): string {
  return messageId.length <= ID_MAX ? messageId : `<sha256.${sha256Hex(messageId).slice(0, 48)}@prx>`;
}

export function firstAddress(field: Address | Address[] | undefined): { address: string; name: string } | undefined {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  for (const entry of list.flatMap((item) => (item.group ? item.group : [item]))) {
    if (entry.address) return { address: entry.address.toLowerCase(), name: entry.name ?? "" };
  }
  return undefined;
}

function header(mail: Email, name: string): string {
  return mail.headers.find((h) => h.key === name)?.value ?? "";
}

/** Mail no person wrote: an auto-reply, a bounce, a list or bulk message (RFC 3834 section 2, RFC 2369, RFC 2919). */
export function isAutomatic(mail: Email, sender: string): boolean {
  const auto = header(mail, "auto-submitted").trim().toLowerCase();
  if (auto !== "" && auto !== "no") return true;
  if (/^(bulk|junk|list)$/i.test(header(mail, "precedence").trim())) return true;
  if (mail.headers.some((h) => h.key.startsWith("list-") || h.key === "x-autoreply" || h.key === "x-autorespond")) return true;
  return /^(mailer-daemon|postmaster|no-?reply|do-?not-?reply)@/i.test(sender);
}

/** The message identifiers of a header (RFC 5322 section 3.6.4: msg-ids, `<...>`, with comments and space between). */
function messageIds(value: string | undefined): string[] {
  return value?.match(/<[^<>\s]+>/g) ?? [];
}

function referencesOf(mail: Email): string[] {
  return messageIds(mail.references);
}

function inReplyTo(mail: Email): string | undefined {
  return messageIds(mail.inReplyTo)[0];
}

/** The thread a message belongs to: the first of its References, else what it answers, else itself. */
export function threadRoot(mail: Email, own: string): string {
  return messageKey(referencesOf(mail)[0] ?? inReplyTo(mail) ?? own);
}

/**
 * The words the sender wrote: a reply's quoted history ("> " lines and the "On ... wrote:" line before them, an
 * Outlook "Original Message" block) and the signature after "-- " are left out.
 */
export function ownWords(text: string): string {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "-- " || /^-{2,}\s*Original Message\s*-{2,}$/i.test(line.trim())) break;
    if (/^On .+wrote:\s*$/.test(line.trim()) && lines.slice(i + 1).some((l) => l.startsWith(">"))) break;
    if (line.startsWith(">")) continue;
    out.push(line);
  }
  return out.join("\n").trim();
}

const MIME_KIND: Array<[RegExp, InboundAttachment["kind"]]> = [
  [/^image\//i, "image"],
  [/^audio\//i, "audio"],
];

/** Where an attachment lives: the message's UID in its folder (under that UIDVALIDITY) and its index. */
export function attachmentRef(uidValidity: string, uid: number, index: number): string {
  return `imap:${uidValidity}:${uid}:${index}`;
}

export function parseAttachmentRef(ref: string): { uidValidity: string; uid: number; index: number } | undefined {
  const match = /^imap:(\d+):(\d+):(\d+)$/.exec(ref);
  return match ? { uidValidity: match[1]!, uid: Number(match[2]), index: Number(match[3]) } : undefined;
}

/** A note for the turn about an attachment that is not an image or audio clip (the model hears it arrived). */
function attachmentNote(attachment: Attachment): string {
  const name = attachment.filename ?? "unnamed";
  return `[attached: ${name} (${attachment.mimeType}, ${attachmentBytes(attachment)} bytes), not read]`;
}

/** An attachment's decoded size (postal-mime hands its content over as an ArrayBuffer). */
export function attachmentBytes(attachment: Attachment): number {
  const content = attachment.content;
  return typeof content === "string" ? Buffer.byteLength(content) : content.byteLength;
}

export interface MailContext {
  channel: string;
  /** The bot's own address: mail from it is never answered. */
  me: string;
  uid: number;
  uidValidity: string;
  /** The message's INTERNALDATE (or now), epoch ms, when it carries no Date. */
  receivedAt: number;
}

/**
 * A parsed mail -> the inbound shape and what a reply to it needs; undefined when it has no sender. `htmlText` is the
 * text of an HTML-only mail (the caller converts it: the converter loads only for such mail).
 */
export function normalizeMail(mail: Email, ctx: MailContext, htmlText = ""): { message: InboundMessage; thread: ThreadHeaders } | undefined {
  const from = firstAddress(mail.replyTo) ?? firstAddress(mail.from);
  if (!from) return undefined;
  const written = mail.messageId?.trim() ?? "";
  // an identifier written without its angle brackets is kept, bracketed
  const ownId = messageIds(written)[0] ?? (/^[^<>\s]+$/.test(written) ? `<${written}>` : `<uid.${ctx.uidValidity}.${ctx.uid}@prx>`);
  const id = messageKey(ownId);
  const subject = mail.subject ?? "";
  const body = mail.text?.trim() ? mail.text : htmlText;
  const attachments: InboundAttachment[] = [];
  const notes: string[] = [];
  mail.attachments.forEach((attachment, index) => {
    const kind = MIME_KIND.find(([pattern]) => pattern.test(attachment.mimeType))?.[1];
    if (kind && attachments.length < CHANNEL_MAX_ATTACHMENTS) {
      attachments.push({ kind, ref: attachmentRef(ctx.uidValidity, ctx.uid, index), bytes: attachmentBytes(attachment) });
    } else notes.push(attachmentNote(attachment));
  });
  const words = ownWords(body);
  const parent = inReplyTo(mail);
  // the first message of a thread says what it is about in its subject
  const opening = !parent && referencesOf(mail).length === 0 && subject.trim() !== "";
  const text = [opening ? `Subject: ${subject.trim()}` : "", words, ...notes].filter((part) => part !== "").join("\n\n");
  return {
    message: {
      id,
      channel: ctx.channel,
      chatId: from.address,
      chatKind: "dm",
      threadId: threadRoot(mail, ownId),
      senderId: from.address,
      senderDisplay: (from.name || from.address).slice(0, 256),
      senderIsBot: from.address === ctx.me.toLowerCase() || isAutomatic(mail, from.address),
      text,
      replyTo: parent ? messageKey(parent) : null,
      mentioned: true,
      timestamp: dateOf(mail) ?? ctx.receivedAt,
      ...(attachments.length > 0 ? { attachments } : {}),
    },
    thread: { messageId: ownId, subject, references: referencesOf(mail) },
  };
}

/** The mail's Date as epoch ms (postal-mime gives it as ISO-8601 when it reads as a date). */
function dateOf(mail: Email): number | undefined {
  const ms = mail.date ? Date.parse(mail.date) : NaN;
  return Number.isFinite(ms) ? ms : undefined;
}

/** The header section of a mail's source (up to the blank line that ends it): all of it when no blank line follows. */
export function headerSection(source: Uint8Array): Uint8Array {
  const bytes = Buffer.from(source.buffer, source.byteOffset, source.byteLength);
  const crlf = bytes.indexOf("\r\n\r\n");
  const lf = bytes.indexOf("\n\n");
  const end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf + 4 : lf >= 0 ? lf + 2 : bytes.byteLength;
  return source.subarray(0, end);
}

/** The subject of a reply: "Re: " once, before the parent's subject. */
export function replySubject(subject: string): string {
  const bare = subject.replace(/^(\s*(re|aw|sv|antw)\s*:\s*)+/i, "").trim();
  return `Re: ${bare || "your message"}`;
}

/** The threading headers of a reply to `parent`. */
export function replyThreading(parent: ThreadHeaders): { inReplyTo: string; references: string[] } {
  return { inReplyTo: parent.messageId, references: [...parent.references.filter((id) => id !== parent.messageId), parent.messageId] };
}
