/** Email as the channel reads it: MIME parsed by mailparser, normalised to the inbound shape; reply threading. */
import { expect, test } from "bun:test";
import { simpleParser } from "mailparser";
import { messageKey, normalizeMail, ownWords, replySubject, replyThreading } from "../../src/channels/email/wire.ts";

const ctx = { channel: "mail", me: "bot@example.test", uid: 7, uidValidity: "42", receivedAt: 1_700_000_000_000 };
const mail = (headers: string, body = "hello") => simpleParser(`${headers}\r\n\r\n${body}`);

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
