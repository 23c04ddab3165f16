/** The files a reply links, at their limits: the size and count bounds, each at the limit and one past. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHANNEL_MAX_ATTACHMENTS, CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES } from "../../src/channels/limits.ts";
import { replyFiles } from "../../src/channels/reply-files.ts";

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "prx-reply-files-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test("a file of CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES is sent; one byte more is named in a note instead", async () => {
  writeFileSync(join(dir, "at.bin"), new Uint8Array(CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES));
  writeFileSync(join(dir, "past.bin"), new Uint8Array(CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES + 1));
  const { attachments, notes } = await replyFiles(dir, "[a](at.bin) [b](past.bin)");
  expect(attachments.map((a) => [a.name, a.kind, a.bytes.byteLength])).toEqual([["at.bin", "file", CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES]]);
  expect(notes).toEqual([`(past.bin not sent: ${CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES + 1} bytes, over the limit of ${CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES})`]);
});

test("CHANNEL_MAX_ATTACHMENTS files go with one reply; the next is named in a note", async () => {
  const links = Array.from({ length: CHANNEL_MAX_ATTACHMENTS + 1 }, (_, i) => {
    writeFileSync(join(dir, `f${i}.txt`), `file ${i}`);
    return `[f${i}](f${i}.txt)`;
  });
  const { attachments, notes } = await replyFiles(dir, links.join(" "));
  expect(attachments).toHaveLength(CHANNEL_MAX_ATTACHMENTS);
  expect(notes).toEqual([`(f${CHANNEL_MAX_ATTACHMENTS}.txt not sent: at most ${CHANNEL_MAX_ATTACHMENTS} files go with one reply)`]);
});

test("an image link to an image is an image; a link to the same file twice sends it once; a symlink out is not followed", async () => {
  writeFileSync(join(dir, "pic.png"), new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  const outside = mkdtempSync(join(tmpdir(), "prx-outside-"));
  writeFileSync(join(outside, "secret.txt"), "secret");
  symlinkSync(join(outside, "secret.txt"), join(dir, "link.txt"));
  try {
    const { attachments, notes } = await replyFiles(dir, "![p](pic.png) [again](./pic.png) [s](link.txt) [w](<pic.png>)");
    expect(attachments.map((a) => [a.name, a.kind, a.mime])).toEqual([["pic.png", "image", "image/png"]]);
    expect(notes).toEqual([]);
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});

test("secrets.env, the logs, dotfiles and prx's own files are never sent; each one read is named in a note", async () => {
  const { mkdirSync } = await import("node:fs");
  writeFileSync(join(dir, "secrets.env"), "OPENAI_API_KEY=sk-test\n");
  writeFileSync(join(dir, ".env"), "TOKEN=x\n");
  writeFileSync(join(dir, "config.toml"), "");
  mkdirSync(join(dir, "logs"));
  writeFileSync(join(dir, "logs", "prx.log"), "a line\n");
  writeFileSync(join(dir, "notes.txt"), "fine");
  const { attachments, notes } = await replyFiles(dir, "[k](secrets.env) [e](.env) [c](config.toml) [l](logs/prx.log) [n](notes.txt)");
  expect(attachments.map((a) => a.name)).toEqual(["notes.txt"]);
  // secrets.env is not even read (tools never read it): its link stays text
  expect(notes).toEqual([".env", "config.toml", "logs/prx.log"].map((name) => `(${name} is prx's own and is not sent)`));
});
