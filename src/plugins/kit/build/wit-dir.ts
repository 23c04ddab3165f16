import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { WIT_FILES } from "../../wasm/wit.ts";
import { kitCacheDir } from "./cache-dir.ts";

/** File name of a plugin's own world (several capability types) beside the PRX WIT files. */
const EXTRA_WORLD_FILE = "kit-world.wit";

/**
 * The PRX WIT folder (the text embedded in prx), plus a plugin's own world when it needs one, written once into the
 * kit cache under its content hash: the build engine reads WIT from a directory.
 */
export function witDirectory(extraWit: string | null): string {
  const files: Record<string, string> = { ...WIT_FILES, ...(extraWit ? { [EXTRA_WORLD_FILE]: extraWit } : {}) };
  const hash = createHash("sha256");
  for (const [path, text] of Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1))) hash.update(`${path}\0${text}\0`);
  const dir = join(kitCacheDir(), "wit", hash.digest("hex").slice(0, 16));
  if (existsSync(dir)) return dir;
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tmp, path)), { recursive: true });
    writeFileSync(join(tmp, path), text);
  }
  try {
    renameSync(tmp, dir);
  } catch (error) {
    // another build wrote the same folder first: it is identical
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  }
  return dir;
}
