import { readFileSync } from "node:fs";
import { ensureSchema } from "../../core/database.ts";
import { PrxError } from "../../core/errors.ts";
import { getLogLevel } from "../../core/logger.ts";
import type { AdmittedPlugin, PluginHostServices, PluginInstance, PluginKind, PluginLoader } from "../types.ts";
import { KV_DDL } from "./host/kv.ts";
import { WasmPluginInstance } from "./instance.ts";
import { Sandbox } from "./sandbox.ts";
import { transpileCached } from "./transpile.ts";

const COMPONENT_LAYER = [0x0d, 0x00, 0x01, 0x00];
const CORE_VERSION = [0x01, 0x00, 0x00, 0x00];

function binaryKind(bytes: Uint8Array): "component" | "module" | null {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) return null;
  const tail = [...bytes.subarray(4, 8)];
  if (tail.every((b, i) => b === COMPONENT_LAYER[i])) return "component";
  if (tail.every((b, i) => b === CORE_VERSION[i])) return "module";
  return null;
}

/** Load an admitted wasm plugin: transpile (cached) when it is a component, then start its sandbox. */
async function load(plugin: AdmittedPlugin, host: PluginHostServices): Promise<PluginInstance> {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(plugin.entryPath);
  } catch (error) {
    throw new PrxError(
      "PLUGIN_LOAD",
      `plugin ${plugin.name}: cannot read ${plugin.entryPath}: ${(error as Error).message}`,
    );
  }
  const actual = binaryKind(bytes);
  const expected = plugin.kind === "wasm-component" ? "component" : "module";
  if (actual === null)
    throw new PrxError("PLUGIN_LOAD", `plugin ${plugin.name}: ${plugin.entryPath} is not a WebAssembly binary`);
  if (actual !== expected) {
    throw new PrxError(
      "PLUGIN_LOAD",
      `plugin ${plugin.name}: ${plugin.entryPath} is a ${actual}, but the plugin was admitted as ${plugin.kind}`,
    );
  }
  ensureSchema(host.db, "plugin-kv", KV_DDL);
  const artifactDir =
    plugin.kind === "wasm-component" ? (await transpileCached(plugin.name, bytes, host.workspace.cacheDir)).dir : null;
  const sandbox = new Sandbox(plugin, host, {
    type: "init",
    plugin: {
      name: plugin.name,
      kind: plugin.kind,
      entryPath: plugin.entryPath,
      capabilities: plugin.capabilities,
      granted: [...plugin.granted],
      config: plugin.config,
      httpAllowlist: plugin.httpAllowlist,
      maxMemoryMb: plugin.resources.maxMemoryMb,
      maxHttpRequestsPerCall: plugin.resources.maxHttpRequestsPerCall,
      maxKvStorageMb: plugin.resources.maxKvStorageMb,
    },
    artifactDir,
    logLevel: getLogLevel(),
    dbPath: host.db.filename,
  });
  await sandbox.start();
  return new WasmPluginInstance(plugin, sandbox);
}

export const wasmLoader: PluginLoader = {
  kinds: ["wasm-component", "wasm-module"] satisfies PluginKind[],
  load,
};
