import { realpathSync, statSync } from "node:fs";
import { basename, relative, sep } from "node:path";
import { errorMessage } from "../core/errors.ts";
import { confineRead, FILE_WRITE_PROTECTED } from "../tools/builtins/confine.ts";
import { SECRETS_FILE } from "../config/secrets-file.ts";
import { CHANNEL_MAX_ATTACHMENTS, CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES } from "./limits.ts";
import type { OutboundAttachment } from "./types.ts";

/**
 * What a reply never sends, whatever it links: prx's own files, the keys in secrets.env, the logs (they hold senders'
 * ids and messages) and dotfiles (`.env`, `.git`...), at the workspace's top level.
 */
const NEVER_SENT: readonly string[] = [...FILE_WRITE_PROTECTED, SECRETS_FILE, "logs"];

/** `![alt](path)` (an image) and `[text](path)` (a file) in Markdown; a URL (scheme:) or an anchor is not a file. */
const LINK = /(!?)\[[^\]\n]*\]\(<?([^)\s>]+)>?(?:\s+"[^"\n]*")?\)/g;

/**
 * The workspace files a reply links in Markdown (`![chart](out/chart.png)`, `[report](report.pdf)`), read to be sent
 * with it: confined to the workspace (no `..`, no symlink out), never prx's own files, secrets, logs or dotfiles (NEVER_SENT), at
 * most CHANNEL_MAX_ATTACHMENTS of at most CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES each. A link that names no such file
 * stays text; a file that cannot be sent gets a note saying why.
 */
export async function replyFiles(workspace: string, text: string): Promise<{ attachments: OutboundAttachment[]; notes: string[] }> {
  const attachments: OutboundAttachment[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  let root: string | undefined;
  for (const [, bang, target] of text.matchAll(LINK)) {
    let requested: string;
    try {
      requested = decodeURI(target!);
    } catch {
      continue; // not a path: a malformed %-escape
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(requested) || requested.startsWith("#") || requested.startsWith("/")) continue;
    let path: string;
    try {
      path = confineRead(workspace, requested);
    } catch {
      continue; // not a workspace file: a link like any other
    }
    root ??= realpathSync(workspace);
    const first = relative(root, path).split(sep)[0] ?? "";
    if (seen.has(path) || !statSync(path).isFile()) continue;
    seen.add(path);
    if (NEVER_SENT.includes(first) || first.startsWith(".")) {
      notes.push(`(${requested} is prx's own and is not sent)`);
      continue;
    }
    if (attachments.length >= CHANNEL_MAX_ATTACHMENTS) {
      notes.push(`(${requested} not sent: at most ${CHANNEL_MAX_ATTACHMENTS} files go with one reply)`);
      continue;
    }
    const size = statSync(path).size;
    if (size > CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES) {
      notes.push(`(${requested} not sent: ${size} bytes, over the limit of ${CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES})`);
      continue;
    }
    try {
      const file = Bun.file(path);
      const mime = file.type.split(";")[0] || "application/octet-stream";
      attachments.push({ kind: bang && mime.startsWith("image/") ? "image" : "file", name: basename(path), mime, bytes: new Uint8Array(await file.arrayBuffer()) });
    } catch (error) {
      notes.push(`(${requested} could not be read: ${errorMessage(error)})`);
    }
  }
  return { attachments, notes };
}
