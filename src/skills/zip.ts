import { inflateRawSync } from "node:zlib";
import { PrxError } from "../core/errors.ts";

/** One regular file of an archive. */
export interface ArchiveFile {
  path: string;
  data: Uint8Array;
  /** Unix permission bits when the archive kept them. */
  mode?: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

function bad(why: string): PrxError {
  return new PrxError("SKILL_INVALID", `the .zip archive cannot be read: ${why}`, { hint: "make it again with zip -r, or install the folder itself" });
}

function inflate(raw: Uint8Array, unpacked: number, path: string): Uint8Array {
  try {
    return new Uint8Array(inflateRawSync(raw, { maxOutputLength: Math.max(1, unpacked) }));
  } catch (cause) {
    throw new PrxError("SKILL_INVALID", `the .zip archive cannot be read: ${path} does not inflate to its declared size`, { cause });
  }
}

/**
 * The regular files of a .zip (stored or deflated; no ZIP64, no encryption), read from its central directory.
 * Folders are skipped; a symbolic link is refused. `limits` bound the number of files and their unpacked bytes,
 * checked from the directory before anything is inflated, and again while inflating.
 */
export function readZip(zip: Uint8Array, limits: { maxFiles: number; maxBytes: number }): ArchiveFile[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = -1;
  for (let at = zip.byteLength - 22; at >= Math.max(0, zip.byteLength - 22 - 0xffff); at--) {
    if (view.getUint32(at, true) === EOCD) {
      end = at;
      break;
    }
  }
  if (end < 0) throw bad("no end of central directory (not a zip file?)");
  const count = view.getUint16(end + 10, true);
  const size = view.getUint32(end + 12, true);
  let at = view.getUint32(end + 16, true);
  if (count === 0xffff || at === 0xffffffff || at + size > end) throw bad("ZIP64 or a damaged central directory");
  if (count > limits.maxFiles) throw new PrxError("LIMIT_EXCEEDED", `the archive holds ${count} entries, more than ${limits.maxFiles}`);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const files: ArchiveFile[] = [];
  let total = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || view.getUint32(at, true) !== CENTRAL) throw bad("a damaged central directory entry");
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const compressed = view.getUint32(at + 20, true);
    const unpacked = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const made = view.getUint16(at + 4, true) >> 8;
    const external = view.getUint32(at + 38, true);
    const local = view.getUint32(at + 42, true);
    const path = decoder.decode(zip.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
    const unixMode = made === 3 ? external >>> 16 : 0;
    if (path.endsWith("/")) continue;
    if ((unixMode & 0o170000) === 0o120000) throw bad(`${path} is a symbolic link`);
    if (flags & 1) throw bad(`${path} is encrypted`);
    if (method !== 0 && method !== 8) throw bad(`${path} uses compression method ${method} (only stored and deflate are read)`);
    total += unpacked;
    if (total > limits.maxBytes) throw new PrxError("LIMIT_EXCEEDED", `the archive's files exceed ${limits.maxBytes} bytes unpacked`);
    if (local + 30 > zip.byteLength || view.getUint32(local, true) !== LOCAL) throw bad(`the local header of ${path}`);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    if (start + compressed > zip.byteLength) throw bad(`${path} is cut short`);
    const raw = zip.subarray(start, start + compressed);
    const data = method === 0 ? raw.slice() : inflate(raw, unpacked, path);
    if (data.byteLength !== unpacked) throw bad(`${path} does not unpack to its declared size`);
    files.push(unixMode ? { path, data, mode: unixMode & 0o777 } : { path, data });
  }
  return files;
}
