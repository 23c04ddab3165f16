/**
 * Email as the channel reads and writes it: a message parsed by mailparser (RFC 5322 headers, MIME multipart, RFC 2047
 * words) normalised to the inbound shape, and the threading headers of a reply (RFC 5322 section 3.6.4: In-Reply-To
 * is the parent's Message-ID, References the parent's References followed by it). Automatic mail (RFC 3834
 * Auto-Submitted, Precedence bulk/junk/list, mailing lists, bounces) counts as sent by a bot, so the bot never
 * answers an auto-responder or a bounce.
 */
import type { AddressObject, Attachment, ParsedMail } from "mailparser";
import { NodeHtmlMarkdown } from "node-html-markdown";
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

export function firstAddress(field: AddressObject | AddressObject[] | undefined): { address: string; name: string } | undefined {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  for (const group of list) {
    for (const entry of group.value) {
      if (entry.address) return { address: entry.address.toLowerCase(), name: entry.name ?? "" };
    }
  }
  return undefined;
}

function header(mail: ParsedMail, name: string): string {
  const value = mail.headers.get(name);
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "object" && "value" in value && typeof value.value === "string") return value.value;
  return String(value);
}

/** Mail no person wrote: an auto-reply, a bounce, a list or bulk message (RFC 3834 section 2, RFC 2369). */
export function isAutomatic(mail: ParsedMail, sender: string): boolean {
  const auto = header(mail, "auto-submitted").trim().toLowerCase();
  if (auto !== "" && auto !== "no") return true;
  if (/^(bulk|junk|list)$/i.test(header(mail, "precedence").trim())) return true;
  // mailparser gathers the List-* headers (RFC 2369, 2919) under "list"
  if (mail.headers.has("list") || mail.headers.has("list-id") || mail.headers.has("x-autoreply") || mail.headers.has("x-autorespond")) return true;
  return /^(mailer-daemon|postmaster|no-?reply|do-?not-?reply)@/i.test(sender);
}

function referencesOf(mail: ParsedMail): string[] {
  const refs = mail.references;
  return (Array.isArray(refs) ? refs : refs ? [refs] : []).filter((id) => id.length > 0);
}

/** The thread a message belongs to: the first of its References, else what it answers, else itself. */
export function threadRoot(mail: ParsedMail, own: string): string {
  return messageKey(referencesOf(mail)[0] ?? mail.inReplyTo ?? own);
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
  return `[attached: ${name} (${attachment.contentType}, ${attachment.size} bytes), not read]`;
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

/** A parsed mail -> the inbound shape and what a reply to it needs; undefined when it has no sender. */
export function normalizeMail(mail: ParsedMail, ctx: MailContext): { message: InboundMessage; thread: ThreadHeaders } | undefined {
  const from = firstAddress(mail.replyTo) ?? firstAddress(mail.from);
  if (!from) return undefined;
  const ownId = mail.messageId ?? `<uid.${ctx.uidValidity}.${ctx.uid}@prx>`;
  const id = messageKey(ownId);
  const subject = mail.subject ?? "";
  // an HTML-only mail is read as Markdown text
  const body = mail.text?.trim() ? mail.text : typeof mail.html === "string" ? NodeHtmlMarkdown.translate(mail.html) : "";
  const attachments: InboundAttachment[] = [];
  const notes: string[] = [];
  mail.attachments.forEach((attachment, index) => {
    const kind = MIME_KIND.find(([pattern]) => pattern.test(attachment.contentType))?.[1];
    if (kind && attachments.length < CHANNEL_MAX_ATTACHMENTS) {
      attachments.push({ kind, ref: attachmentRef(ctx.uidValidity, ctx.uid, index), bytes: attachment.size });
    } else notes.push(attachmentNote(attachment));
  });
  const words = ownWords(body);
  // the first message of a thread says what it is about in its subject
  const opening = !mail.inReplyTo && referencesOf(mail).length === 0 && subject.trim() !== "";
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
      replyTo: mail.inReplyTo ? messageKey(mail.inReplyTo) : null,
      mentioned: true,
      timestamp: mail.date?.getTime() ?? ctx.receivedAt,
      ...(attachments.length > 0 ? { attachments } : {}),
    },
    thread: { messageId: ownId, subject, references: referencesOf(mail) },
  };
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
