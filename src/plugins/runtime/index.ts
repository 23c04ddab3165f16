/** The plugin runtime of a workspace: its generations, reloads, services and the one registry of runtimes. */
export { PluginRuntime, type PluginServices } from "./runtime.ts";
export { getPluginRuntime } from "./registry.ts";
export { SERVICES_CLOSE_DRAIN_MS } from "./services.ts";
export type {
  GenerationListener,
  PluginRuntimeOptions,
  PluginServicesOptions,
  ReloadOptions,
  RuntimeServices,
} from "./types.ts";
