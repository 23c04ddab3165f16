import { realpathSync, statSync } from "node:fs";
import { basename, relative, sep } from "node:path";
import { errorMessage } from "../core/errors.ts";
import { confineRead, FILE_WRITE_PROTECTED } from "../tools/builtins/confine.ts";
import { SECRETS_FILE } from "../config/secrets-file.ts";
import { CHANNEL_MAX_ATTACHMENTS, CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES } from "./limits.ts";
import type { Logger } from "../core/logger.ts";
import type { Channel, OutboundAttachment, ReplyTarget } from "./types.ts";

/**
 * What a reply never sends, whatever it links: prx's own files, the keys in secrets.env, the logs (they hold senders'
 * ids and messages) and dotfiles (`.env`, `.git`...), at the workspace's top level.
 */
const NEVER_SENT: readonly string[] = [...FILE_WRITE_PROTECTED, SECRETS_FILE, "logs"];

/** `![alt](path)` (an image) and `[text](path)` (a file) in Markdown; a URL (scheme:) or an anchor is not a file. */
const LINK = /(!?)\[[^\]\n]*\]\(<?([^)\s>]+)>?(?:\s+"[^"\n]*")?\)/g;

/**
 * Where a link's path (`out/chart.png`) leads, checked as a file to send: confined to the workspace (no `..`, no
 * symlink out), never prx's own files, secrets, logs or dotfiles (NEVER_SENT), at most
 * CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES. `null` when it names no workspace file (the link stays text), a note when the
 * file cannot be sent, else its real path and its path in the workspace.
 */
function locate(workspace: string, requested: string): { real: string; inside: string } | { note: string } | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(requested) || requested.startsWith("#") || requested.startsWith("/")) return null;
  let real: string;
  try {
    real = confineRead(workspace, requested);
  } catch {
    return null; // not a workspace file: a link like any other
  }
  if (!statSync(real).isFile()) return null;
  const inside = relative(realpathSync(workspace), real);
  const first = inside.split(sep)[0] ?? "";
  if (NEVER_SENT.includes(first) || first.startsWith(".")) return { note: `(${requested} is prx's own and is not sent)` };
  const size = statSync(real).size;
  if (size > CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES) return { note: `(${requested} not sent: ${size} bytes, over the limit of ${CHANNEL_MAX_OUTBOUND_ATTACHMENT_BYTES})` };
  return { real, inside: inside.split(sep).join("/") };
}

async function read(file: { real: string; inside: string }, requested: string, kind: OutboundAttachment["kind"]): Promise<OutboundAttachment | { note: string }> {
  try {
    const handle = Bun.file(file.real);
    const mime = handle.type.split(";")[0] || "application/octet-stream";
    const bytes = new Uint8Array(await handle.arrayBuffer());
    return { kind: kind === "image" && mime.startsWith("image/") ? "image" : "file", name: basename(file.real), mime, bytes, path: file.inside };
  } catch (error) {
    return { note: `(${requested} could not be read: ${errorMessage(error)})` };
  }
}

/** One workspace file by its path, read as a file to send under the rules of reply files (locate); null when it is no such file. */
export async function workspaceFile(workspace: string, requested: string): Promise<OutboundAttachment | { note: string } | null> {
  const found = locate(workspace, requested);
  return found && !("note" in found) ? read(found, requested, "file") : found;
}

/**
 * The workspace files a text links in Markdown (`![chart](out/chart.png)`, `[report](report.pdf)`), read to be sent
 * with it (locate), at most CHANNEL_MAX_ATTACHMENTS. A link that names no such file stays text; a file that cannot
 * be sent gets a note saying why.
 */
export async function replyFiles(workspace: string, text: string): Promise<{ attachments: OutboundAttachment[]; notes: string[] }> {
  const attachments: OutboundAttachment[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  for (const [, bang, target] of text.matchAll(LINK)) {
    let requested: string;
    try {
      requested = decodeURI(target!);
    } catch {
      continue; // not a path: a malformed %-escape
    }
    const found = locate(workspace, requested);
    if (!found) continue;
    const key = "note" in found ? found.note : found.real;
    if (seen.has(key)) continue;
    seen.add(key);
    if ("note" in found) {
      notes.push(found.note);
      continue;
    }
    if (attachments.length >= CHANNEL_MAX_ATTACHMENTS) {
      notes.push(`(${requested} not sent: at most ${CHANNEL_MAX_ATTACHMENTS} files go with one reply)`);
      continue;
    }
    const file = await read(found, requested, bang ? "image" : "file");
    if ("note" in file) notes.push(file.note);
    else attachments.push(file);
  }
  return { attachments, notes };
}

/**
 * The workspace files a sent text links, each through the channel's file capability after the text (a channel
 * without it keeps the links as text and sends nothing more). A file that fails is logged and said in the notes.
 */
export async function sendLinkedFiles(
  channel: Channel,
  target: ReplyTarget,
  workspace: string,
  text: string,
  logger: Logger,
): Promise<{ sent: number; notes: string[] }> {
  if (!channel.capabilities.attachments || !channel.sendAttachment) return { sent: 0, notes: [] };
  const { attachments, notes } = await replyFiles(workspace, text);
  let sent = 0;
  for (const attachment of attachments) {
    try {
      await channel.sendAttachment(target, attachment);
      sent += 1;
    } catch (error) {
      logger.error(`${attachment.name} was not sent to ${target.chatId}: ${errorMessage(error)}`);
      notes.push(`(${attachment.name} could not be sent: ${errorMessage(error).split("\n")[0]!.slice(0, 200)})`);
    }
  }
  return { sent, notes };
}
