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
import { type KvPlacement, SandboxInitSchema } from "./protocol.ts";
import { sha256Hex } from "../../core/ids.ts";
import { WASM_IDLE_STOP_MS } from "./limits.ts";
import {
  declarationCache,
  declarationCount,
  declarationKey,
  LazyWasmInstance,
  type Declarations,
  type LazyWasmOptions,
} from "./on-demand/index.ts";
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

/** The plugin's wasm file, checked to be the binary kind it was admitted as. */
function readEntry(plugin: AdmittedPlugin): Uint8Array {
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
  return bytes;
}

/**
 * Prepare a wasm plugin on the main thread (transpile, instrument and compile, all cached by content), check its
 * exports, then start its sandbox, which only instantiates.
 */
async function startSandbox(
  plugin: AdmittedPlugin,
  host: PluginHostServices,
  bytes: Uint8Array,
  options: SandboxOptions,
): Promise<Sandbox> {
  const maxMemoryMb = plugin.resources.maxMemoryMb;
  const metering = meteringFor(plugin.resources.maxFuel);
  const cacheDir = host.workspace.cacheDir;
  const kv = kvPlacement(host);
  const { prepared, done } =
    plugin.kind === "wasm-component"
      ? await prepareComponent(plugin.name, bytes, cacheDir, maxMemoryMb, metering, kv)
      : await prepareModule(plugin.name, bytes, cacheDir, maxMemoryMb, metering);
  let sandbox: Sandbox;
  try {
    checkExports(plugin, prepared);
    sandbox = new Sandbox(plugin, host, initFor(plugin, host, prepared, maxMemoryMb, kv), options, done);
  } catch (error) {
    done();
    throw error;
  }
  try {
    await sandbox.start();
  } catch (error) {
    await sandbox.release();
    throw error;
  }
  return sandbox;
}

/** The sandbox's init message, checked once here, on the sending side: the Worker trusts it (protocol.ts). */
/** PostgreSQL storage: the guest's kv is the host's store, shared by every replica; else the workspace's SQLite file. */
function kvPlacement(host: PluginHostServices): KvPlacement {
  return host.storage?.backend === "postgres" ? "host" : "local";
}

function initFor(
  plugin: AdmittedPlugin,
  host: PluginHostServices,
  prepared: PreparedComponent | PreparedModule,
  maxMemoryMb: number,
  kv: KvPlacement,
) {
  return SandboxInitSchema.parse({
    type: "init",
    plugin: pluginInfo(plugin, maxMemoryMb),
    component:
      prepared.kind === "component"
        ? { key: prepared.key, js: prepared.js, script: prepared.script, imports: prepared.meta.interfaces.imports, modules: prepared.modules }
        : null,
    module: prepared.kind === "module" ? prepared.module : null,
    logLevel: getLogLevel(),
    dbPath: host.storage.path,
    kv,
  });
}

/** Load an admitted wasm plugin with its guest running (see openWasmPlugin for one that starts on demand). */
export async function loadWasmPlugin(
  plugin: AdmittedPlugin,
  host: PluginHostServices,
  options: SandboxOptions = {},
): Promise<PluginInstance> {
  return new WasmPluginInstance(plugin, await startSandbox(plugin, host, readEntry(plugin), options));
}

export interface OpenWasmOptions extends SandboxOptions {
  /** Default WASM_IDLE_STOP_MS; 0 keeps the guest running once started. */
  idleStopMs?: number;
  timers?: LazyWasmOptions["timers"];
}

/**
 * A wasm plugin as a host loads it: when the workspace cache holds its declarations (declarations.ts) under the key
 * of this component and these settings, nothing is prepared or instantiated: its adapters are built from them and
 * its first call starts the guest. Otherwise the guest starts now (so a plugin that cannot start fails its load),
 * and what its declaring exports answer is cached for the next load. Either way the guest stops after `idleStopMs`
 * without a call (lazy-instance.ts).
 */
export async function openWasmPlugin(
  plugin: AdmittedPlugin,
  host: PluginHostServices,
  options: OpenWasmOptions = {},
): Promise<PluginInstance> {
  const bytes = readEntry(plugin);
  const codeHash = sha256Hex(bytes);
  const key = declarationKey(plugin, codeHash);
  const logger = host.logger.child(`plugin.${plugin.name}`);
  const cache = declarationCache(host.workspace.cacheDir, logger);
  const declarations = cache.read(plugin.name, key);
  const declaring = declarationCount(plugin);
  // the file is read again when the guest starts: a plugin does not keep its component in memory while idle
  const open = async () => {
    const now = readEntry(plugin);
    if (sha256Hex(now) !== codeHash) {
      throw new PrxError("PLUGIN_LOAD", `plugin ${plugin.name}: ${plugin.entryPath} changed since the plugin was loaded`, {
        hint: `reload the plugin (prx plugins reload ${plugin.name}) to load the new file`,
      });
    }
    return startSandbox(plugin, host, now, options);
  };
  const lazy = {
    idleStopMs: options.idleStopMs ?? WASM_IDLE_STOP_MS,
    ...(options.timers ? { timers: options.timers } : {}),
    logger,
    declarations,
    declaring,
    onDeclared: (answers: Declarations) => cache.write(plugin.name, key, answers),
  };
  if (declarations !== null) return new LazyWasmInstance(plugin, open, lazy);
  const sandbox = await startSandbox(plugin, host, bytes, options);
  if (declaring === 0) cache.write(plugin.name, key, {});
  return new LazyWasmInstance(plugin, open, lazy, sandbox);
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
  load: (plugin, host) => openWasmPlugin(plugin, host),
};
