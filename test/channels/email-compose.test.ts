import { describe, expect, test } from "bun:test";
import PostalMime from "postal-mime";
import { composeReply, encodeBody, mailDate, subjectHeader } from "../../src/channels/email/compose.ts";

const NOW = Date.UTC(2026, 11, 5, 9, 7, 3);
const base = { from: "bot@example.test", to: "ann@example.test", subject: "Re: Hello", text: "hi" };

async function parsed(raw: string) {
  return PostalMime.parse(raw);
}

describe("a reply as SMTP DATA carries it", () => {
  test("headers and body read back as written, threaded, marked automatic", async () => {
    const raw = composeReply({ ...base, text: "line one\n.line two\r\nthree", inReplyTo: "<p@x>", references: ["<r@x>", "<p@x>"] }, "<id@example.test>", NOW);
    expect(raw.includes("\n") && !/[^\r]\n/.test(raw)).toBe(true);
    const mail = await parsed(raw);
    expect(mail.from?.address).toBe("bot@example.test");
    expect(mail.to?.[0]?.address).toBe("ann@example.test");
    expect(mail.subject).toBe("Re: Hello");
    expect(mail.messageId).toBe("<id@example.test>");
    expect(mail.inReplyTo).toBe("<p@x>");
    expect(mail.references).toBe("<r@x> <p@x>");
    expect(mail.text).toBe("line one\n.line two\nthree\n");
    expect(mail.headers.find((h) => h.key === "auto-submitted")?.value).toBe("auto-replied");
    expect(mail.date).toBe(new Date(NOW).toISOString());
  });

  test("a subject and body that are not ASCII read back unchanged", async () => {
    const subject = "Re: Grüße aus Köln — 😀 ".repeat(6).trim();
    const text = "Über 😀\n= sign and trailing space \n" + "x".repeat(300);
    const mail = await parsed(composeReply({ ...base, subject, text }, "<id@example.test>", NOW));
    expect(mail.subject).toBe(subject);
    expect(mail.text).toBe(`${text}\n`);
  });

  test("threading identifiers that cannot go into a header as they are are left out", async () => {
    const mail = await parsed(composeReply({ ...base, inReplyTo: "<naïve@x>", references: ["<ok@x>", "<naïve@x>"] }, "<id@example.test>", NOW));
    expect(mail.inReplyTo).toBeUndefined();
    expect(mail.references).toBe("<ok@x>");
  });

  test("an address or Message-ID that would break the header is refused", () => {
    expect(() => composeReply({ ...base, to: "ann@example.test\r\nBcc: eve@example.test" }, "<id@example.test>", NOW)).toThrow(/not a plain email address/);
    expect(() => composeReply({ ...base, to: "Ann <ann@example.test>" }, "<id@example.test>", NOW)).toThrow(/not a plain email address/);
    expect(() => composeReply(base, "<id@example.test>\r\nX: y", NOW)).toThrow(/not a message identifier/);
  });

  test("the date is RFC 5322's, in UTC", () => {
    expect(mailDate(NOW)).toBe("Sat, 05 Dec 2026 09:07:03 +0000");
  });
});

describe("line limits (76 characters: quoted-printable's, inside RFC 5322's 78)", () => {
  test("an ASCII body line of exactly 76 characters goes as 7bit; one of 77 as quoted-printable, no line over 76", () => {
    expect(encodeBody("a".repeat(76))).toEqual({ encoding: "7bit", body: "a".repeat(76) });
    const over = encodeBody("a".repeat(77));
    expect(over.encoding).toBe("quoted-printable");
    expect(Math.max(...over.body.split("\r\n").map((l) => l.length))).toBeLessThanOrEqual(76);
  });

  test("a subject header stays one plain line when it fits; a long or non-ASCII one folds within 76 characters", () => {
    expect(subjectHeader("Re: Hello")).toBe("Subject: Re: Hello");
    for (const subject of ["word ".repeat(40).trim(), "Grüße 😀 ".repeat(20).trim()]) {
      const lines = subjectHeader(subject).split("\r\n");
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(76);
      for (const line of lines.slice(1)) expect(line.startsWith(" ")).toBe(true);
    }
  });

  test("a line break in a subject cannot start a header of its own", async () => {
    const mail = await parsed(composeReply({ ...base, subject: "hi\r\nBcc: eve@example.test" }, "<id@example.test>", NOW));
    expect(mail.subject).toBe("hi Bcc: eve@example.test");
    expect(mail.headers.some((h) => h.key === "bcc")).toBe(false);
  });

  test("a subject's encoded words never split a character", async () => {
    const subject = "é😀".repeat(40);
    const mail = await parsed(composeReply({ ...base, subject }, "<id@example.test>", NOW));
    expect(mail.subject).toBe(subject);
  });
});

describe("addresses", () => {
  test("an international domain goes in its IDNA form; a local part outside ASCII is refused (it would need SMTPUTF8)", async () => {
    const { plainAddress } = await import("../../src/channels/email/compose.ts");
    expect(plainAddress("ann@bücher.example")).toBe("ann@xn--bcher-kva.example");
    expect(plainAddress("a.b+c@x.test")).toBe("a.b+c@x.test");
    expect(() => plainAddress("änn@x.test")).toThrow(/not a plain email address/);
    expect(() => plainAddress("@x.test")).toThrow(/not a plain email address/);
  });
});
