import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, normalize, resolve } from "node:path";
import qjsPackage from "componentize-qjs/package.json" with { type: "json" };
import { PrxError } from "../../../core/errors.ts";
import { MANIFEST_FILE, readManifestFile } from "../../discovery.ts";
import { parseManifest, type PluginManifest } from "../../manifest.ts";
import { WIT_FILES } from "../../wasm/wit.ts";
import { SOURCE_ENTRY, writeKitFiles } from "../layout.ts";
import { bundlePlugin } from "./bundle.ts";
import { componentizeBundle, ENGINE_OPTIONS } from "./componentize.ts";
import { readBuildRecord, writeBuildRecord } from "./record.ts";
import { witDirectory } from "./wit-dir.ts";
import { checkHostImports, worldFor } from "./world.ts";

/**
 * `prx plugins build`: a kit plugin folder (plugin.toml + src/plugin.ts) to its component, `plugin.wasm` (or the
 * manifest's `wasm`), built against the PRX WIT with the QuickJS engine. Skipped when nothing it is made from changed.
 */
export interface BuildReport {
  name: string;
  dir: string;
  wasmPath: string;
  world: string;
  bytes: number;
  /** Wall time of this build, bundling included. */
  ms: number;
  /** True when the component was up to date and not built again. */
  upToDate: boolean;
}

export interface BuildOptions {
  /** Build even when the folder's build record says the component is up to date. */
  force?: boolean;
}

export function readKitManifest(dir: string): PluginManifest {
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path)) {
    throw new PrxError("PLUGIN_BUILD", `${dir} has no ${MANIFEST_FILE}`, {
      hint: "build a plugin folder (`prx plugins new <name> --kind tool` makes one)",
    });
  }
  return parseManifest(readManifestFile(path), path).manifest;
}

/** The manifest's wasm path inside the folder (it may not exist yet). */
function wasmTarget(dir: string, manifest: PluginManifest): string {
  const wasm = manifest.plugin.wasm;
  if (isAbsolute(wasm) || wasm.split(/[\\/]+/).includes("..")) {
    throw new PrxError("PLUGIN_BUILD", `${join(dir, MANIFEST_FILE)}: "plugin.wasm" = "${wasm}" escapes the plugin directory`, {
      hint: 'use a path inside the folder, e.g. wasm = "plugin.wasm"',
    });
  }
  return join(dir, normalize(wasm));
}

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

export async function buildPlugin(dirArg: string, options: BuildOptions = {}): Promise<BuildReport> {
  const started = performance.now();
  const dir = resolve(dirArg);
  const manifest = readKitManifest(dir);
  if (manifest.plugin.runtime === "remote") {
    throw new PrxError("PLUGIN_BUILD", `${manifest.plugin.name} is a remote plugin: it runs from its sources, there is nothing to build`, {
      hint: "`prx plugins test` and `prx plugins pack` take it as it is",
    });
  }
  const source = join(dir, SOURCE_ENTRY);
  if (!existsSync(source)) {
    throw new PrxError("PLUGIN_BUILD", `${source} not found: a kit plugin's entry is ${SOURCE_ENTRY}`, {
      hint: "`prx plugins new <name> --kind <kind>` scaffolds one",
    });
  }
  writeKitFiles(dir);
  const world = worldFor(manifest.capabilities.map((c) => c.type));
  const bundle = await bundlePlugin(dir, source, world);
  checkHostImports(world, bundle.hostImports);
  const wasmPath = wasmTarget(dir, manifest);
  // the bundler names each module's path, and a debug id made of them, in comment lines: the key leaves those out, so
  // a folder moved elsewhere is still up to date
  const code = bundle.js.replace(/^\/\/.*$/gm, "");
  const key = sha256(
    [code, world.name, world.extraWit ?? "", JSON.stringify(WIT_FILES), `componentize-qjs@${qjsPackage.version}`, JSON.stringify(ENGINE_OPTIONS)].join(
      "\0",
    ),
  );
  const record = readBuildRecord(dir);
  const upToDate =
    !options.force &&
    record?.key === key &&
    record.wasm === manifest.plugin.wasm &&
    existsSync(wasmPath) &&
    sha256(readFileSync(wasmPath)) === record.wasm_sha256;
  if (!upToDate) {
    const component = await componentizeBundle(bundle, witDirectory(world.extraWit), world.name, dir);
    mkdirSync(dirname(wasmPath), { recursive: true });
    const tmp = `${wasmPath}.tmp-${process.pid}`;
    writeFileSync(tmp, component);
    renameSync(tmp, wasmPath);
    writeBuildRecord(dir, { format: 1, key, wasm: manifest.plugin.wasm, wasm_sha256: sha256(component), world: world.name });
  }
  return {
    name: manifest.plugin.name,
    dir,
    wasmPath,
    world: world.name,
    bytes: statSync(wasmPath).size,
    ms: performance.now() - started,
    upToDate,
  };
}
