import type { Logger } from "../../core/logger.ts";
import type { ManifestCapability } from "../manifest.ts";
import type { AdapterStatus } from "../status.ts";
import type { AdmittedPlugin, CapabilityType, PluginHostServices, PluginInstance } from "../types.ts";
import type { ChatRequest, ChatResponse, Provider, ToolSpec } from "../../providers/types.ts";
import type { MemoryBackend } from "../../memory/types.ts";
import type { ToolContext, ToolResult } from "../../tools/types.ts";
import type { CronJob } from "../cron/types.ts";
import type { MiddlewareEntry } from "../middleware/types.ts";
import type { RemoteEvaluatorInput, RemoteMessageInput, RemotePluginHandle } from "../remote/types.ts";

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

export interface ToolAdapter extends CapabilityAdapter {
  readonly type: "tool";
  /** From `get-spec`, called once when the generation was built. */
  readonly spec: ToolSpec;
  /** Never throws for plugin failures: they become an error result the model sees. */
  call(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
}

/**
 * Middleware adapters: each capability becomes one MiddlewareChain entry calling the guest's
 * `process(stage, data-json)`. Failures (error, invalid JSON, invalid envelope, timeout) are isolated by the chain;
 * the entry's `report` counts them, and blocks, in the capability's status.
 */
export interface MiddlewareAdapter extends CapabilityAdapter {
  readonly type: "middleware";
  readonly entry: MiddlewareEntry;
}

/**
 * Hook adapters: the capability's manifest patterns (`events = [...]` or `[[capabilities.events]] pattern`) are
 * subscribed on the runtime's bus while the generation is current; a pump delivers each event to the guest's
 * `on-event(topic, payload-json)`, with native lifecycle names bridged to `prx.lifecycle.*` first. The pump closes
 * and unregisters when the generation stops being current and, at the latest, when it is released.
 */
export interface HookAdapter extends CapabilityAdapter {
  readonly type: "hook";
  readonly patterns: readonly string[];
  /** Deliver one event to the guest (what the pump calls; also usable directly). */
  deliver(topic: string, payloadJson: string): Promise<void>;
  /** True while its pump is subscribed. */
  readonly subscribed: boolean;
  activate(): void;
  deactivate(): Promise<void>;
}

/**
 * Cron adapters: each capability is one job `<plugin>/<capability>` for the runtime's CronScheduler, which gets the
 * jobs of every new generation (setJobs) and keeps last-fire times in SQLite, outside generations.
 */
export interface CronAdapter extends CapabilityAdapter {
  readonly type: "cron";
  readonly job: CronJob;
}

export interface ProviderAdapter extends CapabilityAdapter {
  readonly type: "provider";
  /** What `name()` returned when the generation was built. */
  readonly exportName: string;
  chat(request: ChatRequest): Promise<ChatResponse>;
}

export interface StorageAdapter extends CapabilityAdapter {
  readonly type: "storage";
  readonly exportName: string;
  /** The backend of this generation (its name is `wasm:<exportName>`). */
  readonly backend: MemoryBackend;
}

/**
 * The surfaces of one remote plugin in one generation that are not capability adapters: prompt context, evaluators,
 * the `remote:<plugin>` provider and gateway routes. Every call is counted as in flight on the generation.
 */
export interface RemoteAdapter {
  readonly plugin: string;
  readonly handle: RemotePluginHandle;
  context(input: RemoteMessageInput, signal?: AbortSignal): Promise<string[]>;
  evaluate(input: RemoteEvaluatorInput): Promise<{ ran: string[]; failed: string[] }>;
  /** The plugin's models as a provider; null when it serves none. */
  readonly provider: Provider | null;
  /** `path` relative to /plugins/<name>. */
  route(method: string, path: string, request: Request): Promise<Response>;
  /** True when the plugin announced the route `method path` answers as `public: true` (served without a token). */
  publicRoute(method: string, path: string): boolean;
}

export interface RemoteAdapterContext {
  plugin: AdmittedPlugin;
  handle: RemotePluginHandle;
  status(type: CapabilityType, name: string): AdapterStatus;
  track<T>(fn: () => Promise<T>): Promise<T>;
  host: PluginHostServices;
  logger: Logger;
}

export interface RemoteAdapters {
  remote: RemoteAdapter;
  /** Tools (one per action) and hooks (one per declared event), in the generation's capability lists. */
  adapters: CapabilityAdapter[];
  /** The capabilities those adapters stand for, as the plugin record lists them. */
  capabilities: ManifestCapability[];
  warnings: string[];
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
