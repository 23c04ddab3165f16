import type { Logger } from "../../core/logger.ts";
import type { ManifestCapability } from "../manifest.ts";
import type { AdapterStatus } from "../status.ts";
import type { AdmittedPlugin, CapabilityType, PluginHostServices, PluginInstance } from "../types.ts";
import type { ToolAdapter } from "./tool.ts";

/**
 * An adapter turns one capability of one loaded plugin into something the host calls. Adapters belong to one
 * generation: consumers never keep them, they ask the runtime's stable proxies, which resolve the current
 * generation at call time.
 */
export interface CapabilityAdapter {
  readonly type: CapabilityType;
  /** Plugin name. */
  readonly plugin: string;
  readonly capability: ManifestCapability;
  /** Called when the generation is released, after its in-flight calls finished (close pumps, timers...). */
  dispose?(): Promise<void> | void;
}

export interface AdapterContext {
  plugin: AdmittedPlugin;
  capability: ManifestCapability;
  instance: PluginInstance;
  /** Counters of this plugin/capability; they outlive the generation. */
  status: AdapterStatus;
  /** Runs one call counted as in flight on the generation (its release waits for it). Use around every call. */
  track<T>(fn: () => Promise<T>): Promise<T>;
  host: PluginHostServices;
  generation: number;
  logger: Logger;
}

/**
 * Adapter type per capability. Part 2 replaces the generic entries with its middleware, hook, cron, provider and
 * storage adapter interfaces and registers their factories in ./index.ts.
 */
export interface CapabilityAdapterMap {
  tool: ToolAdapter;
  middleware: CapabilityAdapter;
  hook: CapabilityAdapter;
  cron: CapabilityAdapter;
  provider: CapabilityAdapter;
  storage: CapabilityAdapter;
}

export type AdapterFactory<K extends CapabilityType> = (context: AdapterContext) => Promise<CapabilityAdapterMap[K]>;
export type AdapterFactories = { [K in CapabilityType]?: AdapterFactory<K> };

/** A generation's adapters grouped by capability type, each list in chain order (priority, then plugin name). */
export type GenerationAdapters = { [K in CapabilityType]: CapabilityAdapterMap[K][] };
