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

/**
 * Why a page cannot be shared here, as the system says it: no such directory (or descriptor), no right to create
 * the file, a read-only or full file system, or one (or a descriptor: a pipe, a terminal) that cannot be mapped.
 * The hop then runs without counts: nothing watches, and the lines still go through the pipes.
 */
const CANNOT_SHARE = new Set(["ENOENT", "EACCES", "EPERM", "EROFS", "ENOSPC", "EDQUOT", "EINVAL", "ENODEV", "ENOTSUP", "EOPNOTSUPP"]);

const hopLog = createLogger("remote.hop");

/** The hop runs without counts: say why, at debug. */
function withoutCounts(log: Logger, reason: string): null {
  log.debug("a subprocess's hop runs without counts: nothing watches for its lines", { reason });
  return null;
}

/** A failure `CANNOT_SHARE` does not name: the hop still runs without counts, and the failure is logged as such. */
function unexpected(log: Logger, what: string, cause: unknown): null {
  const error = new PrxError("PLUGIN_LOAD", `${what}: ${(cause as Error).message}`, { cause });
  log.warn(error.message, { code: error.code, errno: (cause as NodeJS.ErrnoException).code });
  return null;
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
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

/** The counts mapped from descriptor `fd`, or null when the mapping is too short or misaligned for them. */
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
export function openProcessHop(options: ProcessHopOptions = {}): ProcessHop | null {
  const log = options.log ?? hopLog;
  if (process.platform === "win32") return withoutCounts(log, "no shared file mappings on Windows");
  const dir = options.dir ?? (existsSync("/dev/shm") ? "/dev/shm" : tmpdir());
  const path = join(dir, `prx-hop-${process.pid}-${crypto.randomUUID()}`);
  let fd = -1;
  let boxes: HopBoxes | null;
  try {
    fd = openSync(path, "wx+", 0o600);
    unlinkSync(path);
    ftruncateSync(fd, HOP_BYTES);
    boxes = mapCounts(fd);
  } catch (error) {
    if (fd >= 0) closeSync(fd);
    const code = errnoOf(error);
    if (code !== undefined && CANNOT_SHARE.has(code)) return withoutCounts(log, `${code} for a page in ${dir}`);
    return unexpected(log, `cannot map the hop's counts in ${dir}`, error);
  }
  if (!boxes) {
    closeSync(fd);
    return withoutCounts(log, `${dir} mapped fewer bytes than the hop's counts`);
  }
  let open = true;
  return {
    boxes,
    fd,
    closeFd: () => {
      if (open) closeSync(fd);
      open = false;
    },
  };
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
    // too short or misaligned: the host's page is not what this launcher expects; run without counts
    return mapCounts(fd) ?? withoutCounts(log, `descriptor ${fd} maps fewer bytes than the hop's counts`);
  } catch (error) {
    // not open, or not a mappable file (the variable set by hand): without counts, as with an older host
    const code = errnoOf(error);
    if (code !== undefined && CANNOT_SHARE.has(code)) return withoutCounts(log, `${code} mapping descriptor ${fd}`);
    return unexpected(log, `cannot map the hop's counts from descriptor ${fd}`, error);
  } finally {
    closeQuietly(fd, log);
  }
}

/** Close the host's descriptor; EBADF (it was not open: started by hand with the variable set) is nothing to close. */
function closeQuietly(fd: number, log: Logger): void {
  try {
    closeSync(fd);
  } catch (error) {
    if (errnoOf(error) !== "EBADF") unexpected(log, `cannot close the hop's descriptor ${fd}`, error);
  }
}
