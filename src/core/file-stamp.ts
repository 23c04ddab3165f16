import { statSync, type Stats } from "node:fs";
import { PrxError } from "./errors.ts";

/** A file's inode, size, modification and change times: differs once the file is written or replaced by a rename. */
export function statStamp(s: Stats): string {
  return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
}

/** The stamp of the file at `path` ("absent" when there is none), without an exception for a missing file. */
export function fileStamp(path: string): string {
  try {
    const s = statSync(path, { throwIfNoEntry: false });
    return s ? statStamp(s) : "absent";
  } catch (error) {
    throw new PrxError("WORKSPACE", `cannot stat ${path}: ${(error as Error).message}`, { cause: error });
  }
}
