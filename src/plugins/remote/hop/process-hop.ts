import { closeSync, existsSync, ftruncateSync, openSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PrxError } from "../../../core/errors.ts";
import { createLogger, type Logger } from "../../../core/logger.ts";
import { HopBoxes } from "./boxes.ts";

/**
 * Env var telling a plugin subprocess which of its file descriptors holds the hop's counts (the host passes it
 * as an extra stdio descriptor). Under the reserved PRX_REMOTE_PLUGIN_ prefix: no plugin setting can set it.
 */
export const REMOTE_HOP_FD_ENV = "PRX_REMOTE_PLUGIN_HOP_FD";
/** The two counts: messages to the plugin, then messages to the host. */
const HOP_BYTES = 8;

const hopLog = createLogger("remote.hop");

/**
 * The hop runs without counts (nothing watches; the lines still go through the pipes): say why at debug, with the
 * failure's code (the system's errno name, as ENOENT or EROFS, or a PrxError's) when a call failed.
 */
function withoutCounts(log: Logger, reason: string, cause?: unknown): null {
  const { message, code } = (cause ?? {}) as Partial<NodeJS.ErrnoException>;
  log.debug("a subprocess's hop runs without counts: nothing watches for its lines", { reason: message ? `${reason}: ${message}` : reason, code });
  return null;
}

/** The hop's counts in a page two processes map, and (host side, until the spawn) the descriptor to pass on. */
export interface ProcessHop {
  boxes: HopBoxes;
  /** The descriptor the child inherits; `closeFd()` once it is spawned. */
  fd: number;
  closeFd(): void;
}

export interface ProcessHopOptions {
  /** Where the file is made (and unlinked at once): /dev/shm where there is one, else the temporary directory. */
  dir?: string;
  log?: Logger;
}

/** The counts mapped from descriptor `fd`; throws when the mapping is too short or misaligned for them. */
function mapCounts(fd: number): HopBoxes {
  const path = existsSync("/proc/self/fd") ? `/proc/self/fd/${fd}` : `/dev/fd/${fd}`;
  const bytes = Bun.mmap(path, { shared: true });
  if (bytes.byteLength < HOP_BYTES || bytes.byteOffset % 4 !== 0) {
    throw new PrxError("PLUGIN_LOAD", `the mapping holds ${bytes.byteLength} bytes at offset ${bytes.byteOffset}, not ${HOP_BYTES} aligned ones`);
  }
  const counts = new Int32Array(bytes.buffer, bytes.byteOffset, 2);
  return HopBoxes.over(counts.subarray(0, 1), counts.subarray(1, 2));
}

/**
 * Host: the counts of a subprocess's hop, in a file that is unlinked as soon as it is open (in /dev/shm where
 * there is one), so nothing is left on disk and, once both sides have closed their descriptors, no one can
 * truncate it under the mapping. Null where the platform cannot map it (the hop then runs without counts).
 */
export function openProcessHop(options: ProcessHopOptions = {}): ProcessHop | null {
  const log = options.log ?? hopLog;
  if (process.platform === "win32") return withoutCounts(log, "no shared file mappings on Windows");
  const dir = options.dir ?? (existsSync("/dev/shm") ? "/dev/shm" : tmpdir());
  const path = join(dir, `prx-hop-${process.pid}-${crypto.randomUUID()}`);
  let fd = -1;
  try {
    fd = openSync(path, "wx+", 0o600);
    unlinkSync(path);
    ftruncateSync(fd, HOP_BYTES);
    const boxes = mapCounts(fd);
    let open = true;
    return {
      boxes,
      fd,
      closeFd: () => {
        if (open) closeSync(fd);
        open = false;
      },
    };
  } catch (error) {
    if (fd >= 0) closeSync(fd);
    return withoutCounts(log, `cannot map the hop's counts in ${dir}`, error);
  }
}

/**
 * Child: the hop's counts the host passed (REMOTE_HOP_FD_ENV), mapped, with the descriptor closed before any
 * plugin code runs (a plugin holding it could truncate the file under the host's mapping). Null without one.
 */
export function childProcessHop(env: Record<string, string | undefined> = process.env, log: Logger = hopLog): HopBoxes | null {
  const value = env[REMOTE_HOP_FD_ENV];
  if (value === undefined || !/^\d+$/.test(value)) return null;
  const fd = Number(value);
  try {
    return mapCounts(fd);
  } catch (error) {
    // not open, or not the host's page (the variable set by hand): without counts, as with an older host
    return withoutCounts(log, `cannot map the hop's counts from descriptor ${fd}`, error);
  } finally {
    closeDescriptor(fd, log);
  }
}

/** Close the host's descriptor; one that was not open (EBADF: the variable set by hand) is said at debug. */
function closeDescriptor(fd: number, log: Logger): void {
  try {
    closeSync(fd);
  } catch (error) {
    log.debug("no hop descriptor to close", { fd, reason: (error as Error).message, code: (error as NodeJS.ErrnoException).code });
  }
}
