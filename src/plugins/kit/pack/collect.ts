import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { PrxError } from "../../../core/errors.ts";
import { MANIFEST_FILE } from "../../discovery.ts";
import type { PluginManifest } from "../../manifest.ts";
import type { TarFile } from "./tar.ts";
import { PACK_MAX_CONTENT_BYTES, PACK_MAX_FILES } from "./limits.ts";
import { packPathProblem } from "./paths.ts";

/**
 * What a pack of a plugin folder holds. A WASM plugin: plugin.toml, its component and the folder's README and
 * LICENSE (sources and tests stay behind). A remote plugin runs from its sources: every file of the folder,
 * node_modules included, except dot-files and dot-folders (.git, .env, .prx-kit) and symlinks (listed as skipped).
 */
export interface Collected {
  files: TarFile[];
  /** Paths left out (symlinks, dot-entries of a remote plugin), for the report. */
  skipped: string[];
}

const DOCS = /^(README|LICENSE|LICENCE|COPYING|NOTICE|CHANGELOG)(\.[A-Za-z0-9]+)?$/i;

function wasmFiles(dir: string, manifest: PluginManifest): string[] {
  const wasm = manifest.plugin.wasm.split(sep).join("/");
  if (!existsSync(join(dir, wasm))) {
    throw new PrxError("PLUGIN_BUILD", `${join(dir, wasm)} not found: nothing to pack`, { hint: "run `prx plugins build` first" });
  }
  return [MANIFEST_FILE, wasm, ...readdirSync(dir).filter((name) => DOCS.test(name)).sort()];
}

function walk(dir: string, base: string, out: string[], skipped: string[]): void {
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const path = relative(base, full).split(sep).join("/");
    if (name.startsWith(".")) {
      skipped.push(path);
      continue;
    }
    const info = lstatSync(full);
    if (info.isSymbolicLink()) skipped.push(path);
    else if (info.isDirectory()) walk(full, base, out, skipped);
    else if (info.isFile()) out.push(path);
    else skipped.push(path);
  }
}

export function collectPluginFiles(dir: string, manifest: PluginManifest): Collected {
  const skipped: string[] = [];
  const paths: string[] = [];
  if (manifest.plugin.runtime === "remote") walk(dir, dir, paths, skipped);
  else paths.push(...wasmFiles(dir, manifest));
  if (paths.length > PACK_MAX_FILES) {
    throw new PrxError("LIMIT_EXCEEDED", `${dir} holds ${paths.length} files to pack, more than ${PACK_MAX_FILES}`, {
      hint: "remove what the plugin does not need at run time (a remote plugin's node_modules: install with --production)",
    });
  }
  let total = 0;
  const files: TarFile[] = [];
  for (const path of paths) {
    const problem = packPathProblem(path);
    if (problem) throw new PrxError("PLUGIN_ADMISSION", `${join(dir, path)} cannot be packed: its path is ${problem}`);
    const info = lstatSync(join(dir, path));
    if (!info.isFile()) throw new PrxError("PLUGIN_ADMISSION", `${join(dir, path)} is not a regular file: a pack holds files only`);
    total += info.size;
    if (total > PACK_MAX_CONTENT_BYTES) {
      throw new PrxError("LIMIT_EXCEEDED", `the files of ${dir} exceed ${PACK_MAX_CONTENT_BYTES} bytes: too big to pack`);
    }
    files.push({ path, data: new Uint8Array(readFileSync(join(dir, path))) });
  }
  return { files, skipped };
}
