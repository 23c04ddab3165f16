import { PrxError } from "../../../core/errors.ts";
import { PACK_MAX_PATH_BYTES } from "./limits.ts";
import { splitUstarPath } from "./tar.ts";

/**
 * A path a pack may hold: relative, `/`-separated, no empty, `.` or `..` segment, no dot-file or dot-folder (no
 * `.git`, `.env` or `.prx-kit`), no control character, at most PACK_MAX_PATH_BYTES bytes, and storable in a ustar
 * header.
 */
export function packPathProblem(path: string): string | null {
  if (path.length === 0) return "an empty path";
  if (Buffer.byteLength(path) > PACK_MAX_PATH_BYTES) return `longer than ${PACK_MAX_PATH_BYTES} bytes`;
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "an absolute path";
  // NUL, newlines and other control characters; a backslash would be a separator on Windows
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return "a control character or a backslash";
  for (const segment of path.split("/")) {
    if (segment === "" || segment === "." || segment === "..") return `a "${segment}" segment`;
    if (segment.startsWith(".")) return "a dot-file or dot-folder";
  }
  if (!splitUstarPath(path)) return "not storable in a tar header (a file name over 100 bytes, or no folder split under 155)";
  return null;
}

export function checkPackPath(path: string, where: string): void {
  const problem = packPathProblem(path);
  if (problem) {
    throw new PrxError("PLUGIN_ADMISSION", `${where}: "${path}" is ${problem}: refused`, {
      hint: "a pack holds the plugin's files under relative paths, without dot-files",
    });
  }
}
