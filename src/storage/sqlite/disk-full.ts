import { statfsSync } from "node:fs";
import { dirname } from "node:path";
import { PrxError } from "../../core/errors.ts";

/** Free space below this on the database's disk makes an I/O failure of SQLite a full disk. */
export const DISK_FULL_BELOW_BYTES = 1024 * 1024;

const SQLITE_WRITE_FAILURE = /disk I\/O error|database or disk is full|SQLITE_(?:FULL|IOERR)|ENOSPC/i;

/**
 * SQLite says "disk I/O error" when it cannot create its -wal or -shm file, and "database or disk is full" when a write
 * finds no room: when the disk holding `dbPath` is (nearly) full, the error says so, and that nothing was lost (SQLite
 * commits a transaction whole or not at all). Null when the failure is something else.
 */
export function diskFullError(dbPath: string, cause: unknown, what: string): PrxError | null {
  if (!SQLITE_WRITE_FAILURE.test((cause as Error)?.message ?? "")) return null;
  const dir = dirname(dbPath);
  let free: number;
  try {
    const stats = statfsSync(dir);
    free = stats.bavail * stats.bsize;
  } catch {
    return null;
  }
  if (free >= DISK_FULL_BELOW_BYTES) return null;
  return new PrxError("STORAGE", `the disk holding ${dir} is full (${free} bytes free): ${what} failed; nothing already stored was lost`, {
    cause,
    hint: `free some space on that disk (df -h ${dir}), then run the command again`,
  });
}
