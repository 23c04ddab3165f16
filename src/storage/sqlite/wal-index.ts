import type { Database } from "bun:sqlite";
import { existsSync } from "node:fs";

/**
 * The WAL-index header SQLite keeps in a WAL database's `-shm` file, which every connection maps
 * (https://sqlite.org/walformat.html, "The WAL-Index Header"): two copies of 48 bytes in native byte order, the
 * second written first, so a reader that finds them equal read a whole one. In each, `iChange` (offset 8) counts write
 * transactions and `mxFrame` (offset 16) is the last valid frame of the WAL: one of them moves with every commit of
 * any connection in any process, and reading them from the mapping costs no system call and no lock, where
 * `PRAGMA data_version` opens a read transaction (two fcntl locks and a statement).
 */
const HEADER_BYTES = 48;
const ICHANGE_OFFSET = 8;
const MXFRAME_OFFSET = 16;

/** The mapped header of one connection's database, or null where there is none to map (not WAL, in memory). */
const headers = new WeakMap<Database, DataView | null>();

function mapHeader(db: Database): DataView | null {
  const shm = `${db.filename}-shm`;
  if (db.filename === "" || db.filename === ":memory:" || !existsSync(shm)) return null;
  try {
    const bytes = Bun.mmap(shm, { shared: true });
    if (bytes.byteLength < HEADER_BYTES * 2) return null;
    return new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES * 2);
  } catch {
    // a file that cannot be mapped leaves the caller on PRAGMA data_version: the answer, not an error
    return null;
  }
}

/**
 * A stamp that changes with every commit to `db`'s database by any connection (this one included), read from the
 * WAL-index header; null when `db` has none (then ask PRAGMA data_version) or a writer is updating it right now.
 * Throws as any statement would once `db` is closed (the mapping is read only while `db` holds the file open: while
 * it does, SQLite never truncates it).
 */
export function walChangeStamp(db: Database): string | null {
  let header = headers.get(db);
  if (header === undefined) headers.set(db, (header = mapHeader(db)));
  if (header === null) return null;
  void db.inTransaction; // throws once db is closed
  const change = header.getUint32(ICHANGE_OFFSET, true);
  const frame = header.getUint32(MXFRAME_OFFSET, true);
  if (change !== header.getUint32(HEADER_BYTES + ICHANGE_OFFSET, true)) return null;
  if (frame !== header.getUint32(HEADER_BYTES + MXFRAME_OFFSET, true)) return null;
  return `w${change}.${frame}`;
}
