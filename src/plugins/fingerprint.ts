import { readFileSync, statSync } from "node:fs";
import type { Config } from "../config/schema.ts";
import { sha256Hex } from "../core/ids.ts";
import type { PluginRecord } from "./generation.ts";

/**
 * Content hashes of plugin entry files (wasm binaries, remote entries), reused while the file's size, mtime and
 * inode are unchanged, so a reload hashes only what was written since. One per runtime.
 */
export class EntryHashes {
  private readonly known = new Map<string, { stamp: string; hash: string }>();

  hash(path: string): string {
    const info = statSync(path, { bigint: true });
    const stamp = `${info.size}:${info.mtimeNs}:${info.ino}`;
    const hit = this.known.get(path);
    if (hit?.stamp === stamp) return hit.hash;
    const hash = sha256Hex(readFileSync(path));
    this.known.set(path, { stamp, hash });
    return hash;
  }
}

/**
 * Digest of everything an admitted plugin is built from: its manifest (parsed), its entry file's content, its
 * `[plugins.<name>]` table (enabled, grants, config, tool ownership and renames) and, for remote plugins, the
 * `[agent]` table they see as their character. A reload rebuilds a plugin whose digest changed and carries the
 * others over. A remote plugin's other files (modules its entry imports) are not part of it: name the plugin in
 * the reload after changing them.
 */
export function fingerprintOf(record: PluginRecord, config: Config, hashes: EntryHashes): string | null {
  const admitted = record.admitted;
  if (!admitted) return null;
  const inputs = [
    manifestJson(record.manifest),
    hashes.hash(admitted.entryPath),
    JSON.stringify(config.plugins[record.name] ?? null),
    admitted.kind === "remote" ? JSON.stringify(config.agent) : "null",
  ];
  return sha256Hex(inputs.join("\n"));
}

/** A parsed manifest is never changed, and discovery hands out the same one while its file is unchanged. */
const manifestJsons = new WeakMap<object, string>();

function manifestJson(manifest: PluginRecord["manifest"]): string {
  if (manifest === null) return "null";
  let json = manifestJsons.get(manifest);
  if (json === undefined) manifestJsons.set(manifest, (json = JSON.stringify(manifest)));
  return json;
}
