/**
 * A reply as the bytes SMTP DATA carries (RFC 5322, MIME RFC 2045-2047): one text/plain part in UTF-8, 7bit when it is
 * short-lined ASCII, else quoted-printable; the encodings are nodemailer's own (lib/qp, lib/mime-funcs), without its
 * MIME tree and stream pipeline. Lines end in CRLF; the SMTP client dot-stuffs them.
 */
import { domainToASCII } from "node:url";
import { encodeWords, foldLines } from "nodemailer/lib/mime-funcs";
import { encode as qpEncode, wrap as qpWrap } from "nodemailer/lib/qp";

export interface ReplyMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  inReplyTo?: string;
  references?: string[];
}

/** RFC 5322 section 2.1.1: a line SHOULD stay within 78 characters; RFC 2045: quoted-printable lines within 76. */
const LINE_MAX = 76;

const PLAIN = /^[\x20-\x7e]*$/;

/**
 * An address as a header and the envelope take it: printable ASCII (an international domain in its IDNA form), no
 * display name, no line break (header injection). A local part outside ASCII would need SMTPUTF8: refused.
 */
export function plainAddress(value: string): string {
  const at = value.lastIndexOf("@");
  const domain = at > 0 && !PLAIN.test(value.slice(at + 1)) ? domainToASCII(value.slice(at + 1)) : value.slice(at + 1);
  const ascii = `${value.slice(0, at)}@${domain}`;
  if (at <= 0 || !domain || !/^[^\s<>()@,;:"\\]+@[^\s<>()@,;:"\\]+$/.test(ascii) || !PLAIN.test(ascii)) throw new Error(`not a plain email address: ${JSON.stringify(value)}`);
  return ascii;
}

/** A Message-ID that can go into a header as written: printable ASCII in angle brackets. */
function isMessageId(value: string): boolean {
  return /^<[\x21-\x3b\x3d\x3f-\x7e]+>$/.test(value);
}

/**
 * The Subject header field as nodemailer's MIME node writes it: the words that are not plain ASCII as RFC 2047
 * encoded words (base64, at most 52 characters of text each), folded at white space within LINE_MAX.
 */
export function subjectHeader(subject: string): string {
  return foldLines(`Subject: ${encodeWords(subject.replace(/[\r\n\t]+/g, " "), "B", 52)}`, LINE_MAX);
}

/** The body with CRLF line ends, and how it is encoded. */
export function encodeBody(text: string): { encoding: "7bit" | "quoted-printable"; body: string } {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  if (lines.every((line) => line.length <= LINE_MAX && PLAIN.test(line))) return { encoding: "7bit", body: lines.join("\r\n") };
  return { encoding: "quoted-printable", body: qpWrap(qpEncode(lines.join("\r\n")), LINE_MAX) };
}

/** RFC 5322 section 3.3 date-time, in UTC. */
export function mailDate(ms: number): string {
  // "Sat, 05 Dec 2026 17:50:00 GMT"
  return new Date(ms).toUTCString().replace(/GMT$/, "+0000");
}

/**
 * The whole message: headers, a blank line, the body; `id` is the new Message-ID (`<...>`). Threading identifiers that
 * cannot be written into a header as they are (not ASCII) are left out.
 */
export function composeReply(mail: ReplyMail, id: string, now: number): string {
  if (!isMessageId(id)) throw new Error(`not a message identifier: ${JSON.stringify(id)}`);
  const { encoding, body } = encodeBody(mail.text);
  const references = (mail.references ?? []).filter(isMessageId);
  const headers = [
    `From: ${plainAddress(mail.from)}`,
    `To: ${plainAddress(mail.to)}`,
    subjectHeader(mail.subject),
    `Message-ID: ${id}`,
    `Date: ${mailDate(now)}`,
    ...(mail.inReplyTo && isMessageId(mail.inReplyTo) ? [`In-Reply-To: ${mail.inReplyTo}`] : []),
    ...(references.length > 0 ? [`References: ${references.join("\r\n ")}`] : []),
    // RFC 3834: an automatic answer, so auto-responders do not answer it back
    "Auto-Submitted: auto-replied",
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    `Content-Transfer-Encoding: ${encoding}`,
  ];
  return `${headers.join("\r\n")}\r\n\r\n${body}\r\n`;
}
