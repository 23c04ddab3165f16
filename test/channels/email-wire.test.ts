/** Email as the channel reads it: MIME parsed by postal-mime, normalised to the inbound shape; reply threading. */
import { expect, test } from "bun:test";
import PostalMime from "postal-mime";
import { headerSection, messageKey, normalizeMail, ownWords, replySubject, replyThreading } from "../../src/channels/email/wire.ts";

const ctx = { channel: "mail", me: "bot@example.test", uid: 7, uidValidity: "42", receivedAt: 1_700_000_000_000 };
const mail = (headers: string, body = "hello") => PostalMime.parse(`${headers}\r\n\r\n${body}`);

test("a Message-ID of 256 characters is the key as written; one of 257 is named by its hash", () => {
  const at = `<${"a".repeat(254 - "@x".length)}@x>`;
  expect(at.length).toBe(256);
  expect(messageKey(at)).toBe(at);
  const past = `<${"a".repeat(255 - "@x".length)}@x>`;
  expect(past.length).toBe(257);
  expect(messageKey(past)).toMatch(/^<sha256\.[0-9a-f]{48}@prx>$/);
});

test("a reply is threaded under the first of its References and keeps who it answers", async () => {
  const parsed = await mail("From: Ann <Ann@Example.test>\r\nTo: bot@example.test\r\nSubject: Re: plans\r\nMessage-ID: <3@x>\r\nIn-Reply-To: <2@x>\r\nReferences: <1@x> <2@x>", "yes\r\n\r\nOn Monday, Bot wrote:\r\n> the plan");
  const read = normalizeMail(parsed, ctx)!;
  expect(read.message).toMatchObject({ id: "<3@x>", chatId: "ann@example.test", senderDisplay: "Ann", threadId: "<1@x>", replyTo: "<2@x>", text: "yes", senderIsBot: false });
  expect(replyThreading(read.thread)).toEqual({ inReplyTo: "<3@x>", references: ["<1@x>", "<2@x>", "<3@x>"] });
  expect(replySubject(read.thread.subject)).toBe("Re: plans");
});

test("a new mail opens its own thread and says its subject; a mail without Message-ID is named by its UID", async () => {
  const read = normalizeMail(await mail("From: ann@example.test\r\nSubject: Trip"), ctx)!;
  expect(read.message).toMatchObject({ id: "<uid.42.7@prx>", threadId: "<uid.42.7@prx>", replyTo: null, text: "Subject: Trip\n\nhello" });
});

test("auto-replies, bulk and list mail, bounces and the bot's own mail count as sent by a bot", async () => {
  for (const headers of [
    "From: ann@example.test\r\nAuto-Submitted: auto-replied",
    "From: ann@example.test\r\nPrecedence: bulk",
    "From: ann@example.test\r\nList-Id: <news.example.test>",
    "From: MAILER-DAEMON@example.test",
    "From: bot@example.test",
  ]) {
    expect(normalizeMail(await mail(headers), ctx)!.message.senderIsBot).toBe(true);
  }
  expect(normalizeMail(await mail("From: ann@example.test\r\nAuto-Submitted: no"), ctx)!.message.senderIsBot).toBe(false);
});

test("quoted history, an Outlook original message and a signature are not the sender's words", () => {
  expect(ownWords("sure\n\n-----Original Message-----\nFrom: bot")).toBe("sure");
  expect(ownWords("sure\n-- \nAnn")).toBe("sure");
  expect(ownWords("> quoted\nmine")).toBe("mine");
  // "wrote:" without quoted lines after it is the sender's own text
  expect(ownWords("On Monday he wrote:\nthat it rains")).toBe("On Monday he wrote:\nthat it rains");
});

test("a mail without a sender is not a message", async () => {
  expect(normalizeMail(await mail("Subject: nobody"), ctx)).toBeUndefined();
});

test("multipart mail in another charset: RFC 2047 subject and name, quoted-printable text, attachments named with their size", async () => {
  const body = [
    "--b",
    "Content-Type: text/plain; charset=iso-8859-2",
    "Content-Transfer-Encoding: quoted-printable",
    "",
    "Dob=F8e, d=ECkuji",
    "--b",
    "Content-Type: image/png",
    "Content-Disposition: attachment; filename=dot.png",
    "Content-Transfer-Encoding: base64",
    "",
    "iVBORw0KGgo=",
    "--b",
    "Content-Type: application/pdf; name=notes.pdf",
    "Content-Disposition: attachment; filename=notes.pdf",
    "Content-Transfer-Encoding: base64",
    "",
    "JVBERi0xLjQ=",
    "--b--",
    "",
  ].join("\r\n");
  const parsed = await mail(
    "From: =?UTF-8?Q?Ren=C3=A9e?= <renee@example.test>\r\nSubject: =?UTF-8?B?UGzDoW4=?=\r\nMessage-ID: bare@x\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b",
    body,
  );
  const read = normalizeMail(parsed, ctx)!;
  expect(read.message).toMatchObject({ id: "<bare@x>", senderDisplay: "Renée", text: "Subject: Plán\n\nDobře, děkuji\n\n[attached: notes.pdf (application/pdf, 8 bytes), not read]" });
  expect(read.message.attachments).toEqual([{ kind: "image", ref: "imap:42:7:0", bytes: 8 }]);
});

test("an HTML-only mail is read from the text its caller made of it; In-Reply-To with a comment names its message", async () => {
  const parsed = await mail("From: ann@example.test\r\nIn-Reply-To: <2@x> (the plan)\r\nContent-Type: text/html", "<p>yes</p>");
  const read = normalizeMail(parsed, ctx, "yes, as Markdown")!;
  expect(read.message).toMatchObject({ text: "yes, as Markdown", replyTo: "<2@x>", threadId: "<2@x>" });
});

test("the header section of a source ends at its first blank line; a source cut before one is all header", () => {
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const source = (s: string) => new TextEncoder().encode(s);
  expect(text(headerSection(source("Subject: a\r\nFrom: b@x\r\n\r\nbody\r\n\r\nmore")))).toBe("Subject: a\r\nFrom: b@x\r\n\r\n");
  expect(text(headerSection(source("Subject: a\n\nbody")))).toBe("Subject: a\n\n");
  expect(text(headerSection(source("Subject: a\r\nX-Long: aaaa")))).toBe("Subject: a\r\nX-Long: aaaa");
  // a view into a larger buffer (as a fetched source can be) is cut at its own blank line
  const whole = source("XXSubject: a\r\n\r\nbody");
  expect(text(headerSection(whole.subarray(2)))).toBe("Subject: a\r\n\r\n");
});

test("postal-mime (as patched) parses a mail in memory without a promise per line: a 2,000-line mail settles within a few microtasks", async () => {
  const body = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join("\r\n");
  let ticks = 0;
  let counting = true;
  const tick = (): void => {
    ticks++;
    if (counting) queueMicrotask(tick);
  };
  queueMicrotask(tick);
  const parsed = await mail("From: ann@example.test\r\nSubject: long", body);
  counting = false;
  expect(parsed.text!.trimEnd().split("\n")).toHaveLength(2000);
  expect(ticks).toBeLessThan(20);
});

test("a forwarded mail (message/rfc822) and a base64 attachment over several of postal-mime's 100 KiB chunks parse whole", async () => {
  const bytes = new Uint8Array(300_000).map((_, i) => (i * 7919) % 251);
  const b64 = Buffer.from(bytes).toString("base64").replace(/.{76}/g, "$&\r\n");
  const source = [
    "From: ann@example.test",
    "Subject: fwd",
    'Content-Type: multipart/mixed; boundary="b"',
    "",
    "--b",
    "Content-Type: text/plain",
    "",
    "see below",
    "--b",
    "Content-Type: message/rfc822",
    "",
    "From: bob@example.test",
    "Subject: inner",
    "",
    "inner words",
    "--b",
    "Content-Type: application/octet-stream",
    "Content-Disposition: attachment; filename=data.bin",
    "Content-Transfer-Encoding: base64",
    "",
    b64,
    "--b--",
    "",
  ].join("\r\n");
  const parsed = await PostalMime.parse(source);
  expect(parsed.text).toContain("see below");
  expect(parsed.text).toContain("inner words");
  expect(parsed.attachments).toHaveLength(1);
  expect(new Uint8Array(parsed.attachments[0]!.content as ArrayBuffer)).toEqual(bytes);
});
