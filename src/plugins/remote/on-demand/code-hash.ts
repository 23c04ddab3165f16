import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { REMOTE_CODE_HASH_MAX_BYTES, REMOTE_CODE_HASH_MAX_FILES } from "../limits.ts";

/**
 * The content hash of a remote plugin's code: every file of its directory outside `node_modules` and dot-entries
 * (path and bytes, in path order; a symlink to a file by its target's bytes), and for each package in `node_modules` (scoped ones included) its package.json's
 * size and mtime (a reinstall changes them; reading every dependency's bytes would cost more than starting the plugin).
 * Null when the directory holds more than REMOTE_CODE_HASH_MAX_FILES files or REMOTE_CODE_HASH_MAX_BYTES bytes, or
 * cannot be read: such a plugin is not cached.
 */
export function pluginCodeHash(dir: string): string | null {
  const files: string[] = [];
  let bytes = 0;
  const walk = (rel: string): boolean => {
    const entries = readdirSync(join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (entry.name.startsWith(".") || (rel === "" && entry.name === "node_modules")) continue;
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      // a symlinked file counts with its target's content; a symlinked folder is not followed (it may loop)
      const isFile = entry.isFile() || (entry.isSymbolicLink() && statSync(join(dir, path), { throwIfNoEntry: false })?.isFile() === true);
      if (entry.isDirectory()) {
        if (!walk(path)) return false;
      } else if (isFile) {
        files.push(path);
        bytes += statSync(join(dir, path)).size;
        if (files.length > REMOTE_CODE_HASH_MAX_FILES || bytes > REMOTE_CODE_HASH_MAX_BYTES) return false;
      }
    }
    return true;
  };
  const hasher = new Bun.CryptoHasher("sha256");
  try {
    if (!walk("")) return null;
    for (const path of files) {
      const content = readFileSync(join(dir, path));
      hasher.update(`${path}\0${content.length}\0`).update(content);
    }
    hasher.update("\0node_modules\0");
    for (const stamp of packageStamps(join(dir, "node_modules"))) hasher.update(`${stamp}\n`);
  } catch {
    // unreadable (a file vanished while hashing, permissions): not cached, so nothing stale can be served
    return null;
  }
  return hasher.digest("hex");
}

/** `name size mtimeNs` of each package.json in node_modules (one level, two for @scopes); none without the folder. */
function packageStamps(modules: string): string[] {
  let names: string[];
  try {
    names = readdirSync(modules).sort();
  } catch {
    // no node_modules: nothing installed
    return [];
  }
  const stamps: string[] = [];
  const stamp = (name: string) => {
    try {
      const info = statSync(join(modules, name, "package.json"), { bigint: true });
      stamps.push(`${name} ${info.size} ${info.mtimeNs}`);
    } catch {
      // a folder that is not a package (.bin, .cache)
    }
  };
  for (const name of names) {
    if (name.startsWith(".")) continue;
    if (name.startsWith("@")) {
      let scoped: string[];
      try {
        scoped = readdirSync(join(modules, name)).sort();
      } catch {
        // a file named @something: not a scope
        continue;
      }
      for (const inner of scoped) stamp(`${name}/${inner}`);
    } else stamp(name);
  }
  return stamps;
}
