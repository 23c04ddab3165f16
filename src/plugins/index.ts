/** Public face of the plugin runtime. */
export * from "./types.ts";
export {
  getPluginRuntime,
  findPluginRuntime,
  loaderResolver,
  PluginRuntime,
  type PluginRuntimeOptions,
  type RuntimeServices,
  type GenerationListener,
  type ReloadOptions,
} from "./runtime.ts";
export { Generation, GENERATION_DRAIN_TIMEOUT_MS, type PluginRecord, type PluginState, type ReloadOutcome } from "./generation.ts";
export { buildGeneration, type BuildInput, type BuildResult } from "./generation-build.ts";
export { PLUGIN_LOAD_TIMEOUT_MS, type LoaderResolver } from "./loading.ts";
export * from "./manifest.ts";
export {
  discoverPlugins,
  inspectPluginDir,
  detectWasmKind,
  MANIFEST_FILE,
  MANIFEST_MAX_BYTES,
  PLUGINS_DIR_MAX_ENTRIES,
  WASM_MAX_BYTES,
  type DiscoveredPlugin,
} from "./discovery.ts";
export { decidePermissions, isSensitivePermission, type PermissionDecision } from "./permissions.ts";
export { StatusStore, AdapterStatus, STATUS_MESSAGE_MAX_CHARS, type AdapterCounters } from "./status.ts";
export * from "./api.ts";
export * from "./adapters/index.ts";
