import {
  closeSync,
  fstatSync,
  fsyncSync,
  openSync,
  readSync,
  realpathSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { PrxError } from "../../core/errors.ts";
import { statStamp } from "../../core/file-stamp.ts";
import { sha256Hex } from "../../core/ids.ts";

import { HOOKS_FILE_MAX_BYTES } from "./limits.ts";

export type RawHooksFile =
  | { exists: false; stamp: string }
  /** text is null when the bytes are not valid UTF-8. */
  | { exists: true; stamp: string; hash: string; text: string | null; bytes: number }
  | { exists: true; stamp: string; hash: null; tooLarge: number };

/** Read hooks.json, never more than HOOKS_FILE_MAX_BYTES + 1 bytes. */
export function readHooksFile(path: string): RawHooksFile {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { exists: false, stamp: "absent" };
    throw new PrxError("WORKSPACE", `cannot open ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const s = fstatSync(fd);
    const stamp = statStamp(s);
    if (s.size > HOOKS_FILE_MAX_BYTES) return { exists: true, stamp, hash: null, tooLarge: s.size };
    const buffer = Buffer.alloc(HOOKS_FILE_MAX_BYTES + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > HOOKS_FILE_MAX_BYTES) return { exists: true, stamp, hash: null, tooLarge: length };
    }
    const bytes = buffer.subarray(0, length);
    let text: string | null = null;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      // Reported by the caller as "not valid UTF-8".
    }
    return { exists: true, stamp, hash: sha256Hex(bytes), text, bytes: length };
  } finally {
    closeSync(fd);
  }
}

/** Replace the file atomically: write a sibling temp file (0600), fsync, rename over the target. */
export function writeHooksFileAtomic(path: string, text: string): void {
  let target = path;
  try {
    target = realpathSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const temp = join(dirname(target), `.${basename(target)}.${crypto.randomUUID()}.tmp`);
  try {
    const fd = openSync(temp, "wx", 0o600);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // The temp file was not created or was already renamed.
    }
    throw new PrxError("WORKSPACE", `cannot write ${path}: ${(error as Error).message}`, {
      cause: error,
      hint: "check that the workspace directory is writable",
    });
  }
}
