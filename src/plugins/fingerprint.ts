import { readFileSync, statSync } from "node:fs";
import type { Config } from "../config/schema.ts";
import { sha256Hex } from "../core/ids.ts";
import type { DiscoveredPlugin } from "./discovered.ts";
import type { PluginRecord } from "./generation.ts";

interface Known {
  manifest: PluginRecord["manifest"];
  entryHash: string;
  table: string;
  agent: string;
  fingerprint: string;
  /** What discovery handed out for the plugin then (the same object while its files are unchanged). */
  found?: DiscoveredPlugin;
}

/**
 * Content hashes of plugin entry files (wasm binaries, remote entries), reused while the file's stamp (identity, size,
 * times) is unchanged, so a reload hashes only what was written since; and the last fingerprint of each plugin, reused
 * while its inputs are the same (the same parsed manifest, entry hash and config tables), so an unchanged plugin
 * costs a reload no digest. One per runtime.
 */
export class EntryHashes {
  private readonly known = new Map<string, { stamp: string; hash: string }>();
  private readonly fingerprints = new Map<string, Known>();

  /** `stamp`: the file's stamp as discovery read it (then it is not looked at again). */
  hash(path: string, stamp?: string): string {
    if (stamp === undefined) {
      const info = statSync(path, { bigint: true });
      stamp = `${info.size}:${info.mtimeNs}:${info.ino}`;
    }
    const hit = this.known.get(path);
    if (hit?.stamp === stamp) return hit.hash;
    const hash = sha256Hex(readFileSync(path));
    this.known.set(path, { stamp, hash });
    return hash;
  }

  /** The fingerprint of `name` from these inputs: the last one while they are unchanged. */
  fingerprint(name: string, inputs: Omit<Known, "fingerprint">): string {
    const hit = this.fingerprints.get(name);
    if (hit && hit.manifest === inputs.manifest && hit.entryHash === inputs.entryHash && hit.table === inputs.table && hit.agent === inputs.agent) {
      if (inputs.found) hit.found = inputs.found;
      return hit.fingerprint;
    }
    const fingerprint = sha256Hex([manifestJson(inputs.manifest), inputs.entryHash, inputs.table, inputs.agent].join("\n"));
    this.fingerprints.set(name, { ...inputs, fingerprint });
    return fingerprint;
  }

  /**
   * The fingerprint `name` has now, without hashing or reading anything, when nothing it is taken from changed since
   * the last one: discovery handed out the same object (its manifest and entry file have the stamps they had) and
   * its config tables read the same. Undefined: take it (fingerprintOf).
   */
  unchanged(name: string, found: DiscoveredPlugin, config: Config): string | undefined {
    const hit = this.fingerprints.get(name);
    if (!hit || hit.found !== found || !found.ok) return undefined;
    if (hit.table !== tableJson(config.plugins[name])) return undefined;
    if (hit.agent !== (found.kind === "remote" ? JSON.stringify(config.agent) : "null")) return undefined;
    return hit.fingerprint;
  }
}

/**
 * Digest of everything an admitted plugin is built from: its manifest (parsed), its entry file's content, its
 * `[plugins.<name>]` table (enabled, grants, config, tool ownership and renames) and, for remote plugins, the
 * `[agent]` table they see as their character. A reload rebuilds a plugin whose digest changed and carries the
 * others over. A remote plugin's other files (modules its entry imports) are not part of it: name the plugin in
 * the reload after changing them. `found`: what discovery found (its entry file's stamp is used, and it is kept).
 */
export function fingerprintOf(record: PluginRecord, config: Config, hashes: EntryHashes, found?: DiscoveredPlugin): string | null {
  const admitted = record.admitted;
  if (!admitted) return null;
  return hashes.fingerprint(record.name, {
    ...(found ? { found } : {}),
    manifest: record.manifest,
    entryHash: hashes.hash(admitted.entryPath, found?.ok ? found.entryStamp : undefined),
    table: tableJson(config.plugins[record.name]),
    agent: admitted.kind === "remote" ? JSON.stringify(config.agent) : "null",
  });
}

/** A table of config.toml as JSON; a missing one is the common case. */
function tableJson(table: unknown): string {
  return table === undefined ? "null" : JSON.stringify(table);
}

/** A parsed manifest is never changed, and discovery hands out the same one while its file is unchanged. */
const manifestJsons = new WeakMap<object, string>();

function manifestJson(manifest: PluginRecord["manifest"]): string {
  if (manifest === null) return "null";
  let json = manifestJsons.get(manifest);
  if (json === undefined) manifestJsons.set(manifest, (json = JSON.stringify(manifest)));
  return json;
}
