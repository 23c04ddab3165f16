import type { Logger } from "../../core/logger.ts";
import type { ManifestCapability } from "../manifest.ts";
import type { AdapterStatus } from "../status.ts";
import type { AdmittedPlugin, CapabilityType, PluginHostServices, PluginInstance } from "../types.ts";
import type { CronAdapter } from "./cron.ts";
import type { HookAdapter } from "./hook.ts";
import type { MiddlewareAdapter } from "./middleware.ts";
import type { RemoteAdapterContext, RemoteAdapters } from "./remote.ts";
import type { ProviderAdapter } from "./provider.ts";
import type { StorageAdapter } from "./storage.ts";
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
  /**
   * Called when the generation becomes the current one (after the atomic swap), for adapters that must only be
   * live in the current generation (hook pumps). Never called for a candidate that is not published.
   */
  activate?(): void;
  /** Called when the generation stops being current (the next swap or runtime stop). Idempotent. */
  deactivate?(): Promise<void>;
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

/** Adapter type per capability; the factories are registered in ./index.ts. */
export interface CapabilityAdapterMap {
  tool: ToolAdapter;
  middleware: MiddlewareAdapter;
  hook: HookAdapter;
  cron: CronAdapter;
  provider: ProviderAdapter;
  storage: StorageAdapter;
}

export type AdapterFactory<K extends CapabilityType> = (context: AdapterContext) => Promise<CapabilityAdapterMap[K]>;
/** Builds the adapters of a started remote plugin from its announced surfaces (remote plugins declare no capabilities). */
export type RemoteAdapterFactory = (context: RemoteAdapterContext) => Promise<RemoteAdapters>;
export type AdapterFactories = { [K in CapabilityType]?: AdapterFactory<K> } & { remote?: RemoteAdapterFactory };

/** A generation's adapters grouped by capability type, each list in chain order (priority, then plugin name). */
export type GenerationAdapters = { [K in CapabilityType]: CapabilityAdapterMap[K][] };
