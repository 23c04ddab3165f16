import { closeSync, existsSync, ftruncateSync, openSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HopBoxes } from "./boxes.ts";

/**
 * Env var telling a plugin subprocess which of its file descriptors holds the hop's counts (the host passes it
 * as an extra stdio descriptor). Under the reserved PRX_REMOTE_PLUGIN_ prefix: no plugin setting can set it.
 */
export const REMOTE_HOP_FD_ENV = "PRX_REMOTE_PLUGIN_HOP_FD";
/** The two counts: messages to the plugin, then messages to the host. */
const HOP_BYTES = 8;

/** The hop's counts in a page two processes map, and (host side, until the spawn) the descriptor to pass on. */
export interface ProcessHop {
  boxes: HopBoxes;
  /** The descriptor the child inherits; `closeFd()` once it is spawned. */
  fd: number;
  closeFd(): void;
}

function mapCounts(fd: number): HopBoxes | null {
  const path = existsSync("/proc/self/fd") ? `/proc/self/fd/${fd}` : `/dev/fd/${fd}`;
  const bytes = Bun.mmap(path, { shared: true });
  if (bytes.byteLength < HOP_BYTES || bytes.byteOffset % 4 !== 0) return null;
  const counts = new Int32Array(bytes.buffer, bytes.byteOffset, 2);
  return HopBoxes.over(counts.subarray(0, 1), counts.subarray(1, 2));
}

/**
 * Host: the counts of a subprocess's hop, in a file that is unlinked as soon as it is open (in /dev/shm where
 * there is one), so nothing is left on disk and, once both sides have closed their descriptors, no one can
 * truncate it under the mapping. Null where the platform cannot map it (the hop then runs without counts).
 */
export function openProcessHop(): ProcessHop | null {
  if (process.platform === "win32") return null;
  const dir = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
  const path = join(dir, `prx-hop-${process.pid}-${crypto.randomUUID()}`);
  let fd = -1;
  try {
    fd = openSync(path, "wx+", 0o600);
    unlinkSync(path);
    ftruncateSync(fd, HOP_BYTES);
    const boxes = mapCounts(fd);
    if (!boxes) throw new Error("mapped fewer bytes than the hop's counts");
    let open = true;
    return {
      boxes,
      fd,
      closeFd: () => {
        if (open) closeSync(fd);
        open = false;
      },
    };
  } catch {
    // no shared mapping here (no /dev/shm, no mmap of this file system): the hop runs without counts
    if (fd >= 0) closeSync(fd);
    return null;
  }
}

/**
 * Child: the hop's counts the host passed (REMOTE_HOP_FD_ENV), mapped, with the descriptor closed before any
 * plugin code runs (a plugin holding it could truncate the file under the host's mapping). Null without one.
 */
export function childProcessHop(env: Record<string, string | undefined> = process.env): HopBoxes | null {
  const value = env[REMOTE_HOP_FD_ENV];
  if (value === undefined || !/^\d+$/.test(value)) return null;
  const fd = Number(value);
  try {
    return mapCounts(fd);
  } catch {
    // not a mappable file (the variable set by hand): the hop runs without counts, as with an older host
    return null;
  } finally {
    try {
      closeSync(fd);
    } catch {
      // not open (started by hand with the variable set): nothing to close
    }
  }
}
