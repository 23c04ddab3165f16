import { readFileSync } from "node:fs";
import { PrxError } from "../../core/errors.ts";
import { getLogLevel } from "../../core/logger.ts";
import type { AdmittedPlugin, PluginHostServices, PluginInstance, PluginKind, PluginLoader } from "../types.ts";
import {
  type PreparedComponent,
  type PreparedModule,
  meteringFor,
  prepareComponent,
  prepareModule,
} from "./artifact-cache.ts";
import { checkComponentExports } from "./component-exports.ts";
import { REQUIRED_EXPORTS, snakeCase } from "./guest/types.ts";
import { WasmPluginInstance } from "./instance.ts";
import { pluginInfo } from "./host/context.ts";
import { SandboxInitSchema } from "./protocol.ts";
import { Sandbox, type SandboxOptions } from "./sandbox/index.ts";

const COMPONENT_LAYER = [0x0d, 0x00, 0x01, 0x00];
const CORE_VERSION = [0x01, 0x00, 0x00, 0x00];

function binaryKind(bytes: Uint8Array): "component" | "module" | null {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) return null;
  const tail = [...bytes.subarray(4, 8)];
  if (tail.every((b, i) => b === COMPONENT_LAYER[i])) return "component";
  if (tail.every((b, i) => b === CORE_VERSION[i])) return "module";
  return null;
}

/**
 * Load an admitted wasm plugin: prepare it on the main thread (transpile, instrument and compile, all cached by
 * content), check its exports, then start its sandbox, which only instantiates.
 */
export async function loadWasmPlugin(
  plugin: AdmittedPlugin,
  host: PluginHostServices,
  options: SandboxOptions = {},
): Promise<PluginInstance> {
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
  const maxMemoryMb = plugin.resources.maxMemoryMb;
  const metering = meteringFor(plugin.resources.maxFuel);
  const cacheDir = host.workspace.cacheDir;
  const prepared =
    actual === "component"
      ? await prepareComponent(plugin.name, bytes, cacheDir, maxMemoryMb, metering)
      : await prepareModule(plugin.name, bytes, cacheDir, maxMemoryMb, metering);
  checkExports(plugin, prepared);
  // checked once here, on the sending side: the Worker trusts it (protocol.ts)
  const init = SandboxInitSchema.parse({
    type: "init",
    plugin: pluginInfo(plugin, maxMemoryMb),
    component:
      prepared.kind === "component"
        ? { key: prepared.key, js: prepared.js, imports: prepared.meta.interfaces.imports, modules: prepared.modules }
        : null,
    module: prepared.kind === "module" ? prepared.module : null,
    logLevel: getLogLevel(),
    dbPath: host.storage.path,
    // PostgreSQL storage: the guest's kv is the host's store, shared by every replica
    kv: host.storage?.backend === "postgres" ? "host" : "local",
  });
  const sandbox = new Sandbox(plugin, host, init, options);
  try {
    await sandbox.start();
  } catch (error) {
    await sandbox.release();
    throw error;
  }
  return new WasmPluginInstance(plugin, sandbox);
}

/** Every capability's exports must be present before a sandbox is started for it. */
function checkExports(plugin: AdmittedPlugin, prepared: PreparedComponent | PreparedModule): void {
  if (prepared.kind === "component") {
    for (const cap of plugin.capabilities) checkComponentExports(plugin.name, cap, prepared.meta);
    return;
  }
  const moduleExports = new Set(WebAssembly.Module.exports(prepared.module).map((e) => e.name));
  for (const cap of plugin.capabilities) {
    for (const fn of REQUIRED_EXPORTS[cap.type]) {
      if (moduleExports.has(snakeCase(fn))) continue;
      throw new PrxError(
        "PLUGIN_LOAD",
        `plugin ${plugin.name}: capability ${cap.type} ${cap.name} needs the export ${snakeCase(fn)} (CORE-ABI.md)`,
      );
    }
  }
}

export const wasmLoader: PluginLoader = {
  kinds: ["wasm-component", "wasm-module"] satisfies PluginKind[],
  load: (plugin, host) => loadWasmPlugin(plugin, host),
};
