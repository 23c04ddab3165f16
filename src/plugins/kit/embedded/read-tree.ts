import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * A Bun macro (imported `with { type: "macro" }`): the files of a folder of src/plugins/kit/ as path -> text,
 * inlined where it is called when prx is bundled (so the binary carries them) and read from disk when prx runs
 * from source.
 */
export function readTree(folder: string, only?: string[]): Record<string, string> {
  const base = join(import.meta.dir, "..", folder);
  const files: Record<string, string> = {};
  for (const path of only ?? readdirSync(base, { recursive: true, encoding: "utf8" }).sort()) {
    if (statSync(join(base, path)).isFile()) files[path.split("\\").join("/")] = readFileSync(join(base, path), "utf8");
  }
  return files;
}
