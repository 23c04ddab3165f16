import { existsSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PrxError } from "../../../core/errors.ts";
import { buildPlugin, readKitManifest } from "../build/build.ts";
import { SOURCE_ENTRY } from "../layout.ts";
import { collectPluginFiles } from "./collect.ts";
import { PACK_MAX_ARCHIVE_BYTES } from "./limits.ts";
import { contentHash, PACK_MANIFEST_FILE, PackManifestSchema, sha256Hex, type PackManifest } from "./manifest.ts";
import { writeTar, type TarFile } from "./tar.ts";

/**
 * `prx plugins pack`: a plugin folder (built first when it is a kit plugin) as one `.tar.gz`: prx-pack.json, then
 * the plugin's files. Named `<name>-<version>-<first 12 hex of the content hash>.tar.gz` (in the current folder, or
 * the folder `out` names), or `out`.
 */
export interface PackReport {
  path: string;
  manifest: PackManifest;
  bytes: number;
  skipped: string[];
}

/** The pack of a folder, in memory: its manifest and the tar entries (prx-pack.json first). */
export async function packEntries(
  dirArg: string,
  options: { build?: boolean } = {},
): Promise<{ manifest: PackManifest; entries: TarFile[]; skipped: string[] }> {
  const dir = resolve(dirArg);
  const plugin = readKitManifest(dir);
  if (options.build !== false && plugin.plugin.runtime === "wasm" && existsSync(join(dir, SOURCE_ENTRY))) await buildPlugin(dir);
  const { files, skipped } = collectPluginFiles(dir, plugin);
  const listed = files.map((f) => ({ path: f.path, size: f.data.length, sha256: sha256Hex(f.data) }));
  const manifest = PackManifestSchema.parse({
    format: 1,
    name: plugin.plugin.name,
    version: plugin.plugin.version,
    runtime: plugin.plugin.runtime,
    content_hash: contentHash(listed),
    files: listed,
  });
  const json = new TextEncoder().encode(JSON.stringify(manifest, null, 2) + "\n");
  return { manifest, entries: [{ path: PACK_MANIFEST_FILE, data: json }, ...files], skipped };
}

export async function packPlugin(dirArg: string, out?: string): Promise<PackReport> {
  const { manifest, entries, skipped } = await packEntries(dirArg);
  const archive = Bun.gzipSync(writeTar(entries), { level: 9 });
  if (archive.length > PACK_MAX_ARCHIVE_BYTES) {
    throw new PrxError("LIMIT_EXCEEDED", `the pack of ${manifest.name} is ${archive.length} bytes, more than ${PACK_MAX_ARCHIVE_BYTES}`);
  }
  const name = `${manifest.name}-${manifest.version}-${manifest.content_hash.slice(0, 12)}.tar.gz`;
  // `out` may name the file, or a folder to write it into under its own name
  const path = out === undefined ? resolve(name) : statSync(out, { throwIfNoEntry: false })?.isDirectory() ? resolve(out, name) : resolve(out);
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, archive);
  renameSync(tmp, path);
  return { path, manifest, bytes: archive.length, skipped };
}
