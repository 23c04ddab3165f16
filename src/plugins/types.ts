import type { Config } from "../config/schema.ts";
import type { JsonValue } from "../core/json/index.ts";
import type { Logger } from "../core/logger.ts";
import type { EventPublisher } from "../core/events.ts";
import type { Workspace } from "../core/workspace.ts";
import type { MemoryBackend } from "../memory/types.ts";
import type { ProviderResolver } from "../providers/types.ts";
import type { DeliveryDepths } from "./events/delivery-depths.ts";
import type { HostCallBudgetStatus, HostCallLimits } from "./host-calls/types.ts";
import type { MemoryTicker } from "./remote/host/memory/ticker.ts";
import type { RemoteHostBindings, SessionSource } from "./remote/types.ts";
import type { Storage } from "../storage/types.ts";

/**
 * Contracts between the plugin runtime (registry, generations, adapters) and the loaders that turn an
 * admitted plugin into something callable (WASM sandbox, remote JS supervisor).
 */
export const PluginKinds = ["wasm-component", "wasm-module", "remote"] as const;
export type PluginKind = (typeof PluginKinds)[number];

export const CapabilityTypes = ["tool", "middleware", "hook", "cron", "provider", "storage"] as const;
export type CapabilityType = (typeof CapabilityTypes)[number];

/** Every permission a plugin.toml may name: the host interfaces (src/plugins/wasm/wit.ts HOST_INTERFACES). */
export const PLUGIN_PERMISSIONS = ["log", "config", "kv", "http-outbound", "memory", "events", "websocket"] as const;

/** Permissions granted without asking. Everything else a plugin requires must be granted in config. */
export const AUTO_GRANTED_PERMISSIONS = ["log", "config", "kv"] as const;

export interface CapabilityRef {
  type: CapabilityType;
  name: string;
}

export const DEFAULT_MAX_KV_STORAGE_MB = 10;

/** Resource limits after defaults are applied. */
export interface PluginResources {
  maxMemoryMb: number;
  maxExecutionTimeMs: number;
  maxHttpRequestsPerCall: number;
  maxKvStorageMb: number;
  /** Declared by PRX manifests; JavaScriptCore has no fuel metering, so it is reported, not enforced. */
  maxFuel: number | null;
  /** `max_host_calls_per_second`, `host_call_burst`, `max_host_calls_in_flight` (absent: the defaults). */
  hostCalls?: HostCallLimits;
}

/** A plugin that passed discovery and admission, ready to be loaded by a loader of its kind. */
export interface AdmittedPlugin {
  name: string;
  version: string;
  kind: PluginKind;
  /** Canonical plugin directory. */
  dir: string;
  /** Canonical path of the wasm file (wasm kinds) or entry file (remote). */
  entryPath: string;
  capabilities: CapabilityRef[];
  resources: PluginResources;
  /** Effective permissions: auto-granted plus required/optional ones granted in config. */
  granted: ReadonlySet<string>;
  /** Manifest [config] merged with `[plugins.<name>].config` from config.toml. */
  config: Record<string, string>;
  /**
   * Remote plugins' `[plugins.<name>.settings]` from config.toml with `[plugins.<name>.secrets]` read from their
   * environment variables (secrets win); over the manifest's `[remote.settings]` and `config`.
   */
  settings?: Record<string, JsonValue>;
  /** Manifest `[permissions] http_allowlist`. */
  httpAllowlist: string[];
  /** The manifest's `[remote]` table, for kind "remote" only (defaults applied). */
  remote?: RemotePluginOptions;
}

/** `[remote]` of a `runtime = "remote"` plugin.toml, after defaults (src/plugins/manifest.ts). */
export interface RemotePluginOptions {
  /** Relative to the plugin directory, as written; AdmittedPlugin.entryPath has the canonical path. */
  entry: string;
  transport: "worker" | "process";
  settings: Record<string, JsonValue>;
  rpc_timeout_ms: number;
  ready_timeout_ms: number;
  /** Stop after this long without a call, start again on the next; 0 keeps it running; absent: REMOTE_DEFAULT_IDLE_STOP_MS (PROTOCOL.md "On demand"). */
  idle_stop_ms?: number;
}

/** Services the host offers to every plugin instance (KV, memory, events, logs, models). One per runtime. */
export interface PluginHostServices {
  workspace: Workspace;
  events: EventPublisher;
  /** The live memory backend, resolved at call time (it may change). Null when memory is "none". */
  memory: () => MemoryBackend | null;
  providers?: ProviderResolver;
  logger: Logger;
  /** The configuration the runtime builds with, read at call time (remote plugins' default model and character). */
  config?: () => Config;
  /**
   * The agent host's sessions (remote plugins see a session as a room, its messages as history); absent outside an
   * agent host (`prx plugins`), where remote plugins find no rooms.
   */
  sessions?: SessionSource;
  /**
   * The workspace's stores: plugin KV (a wasm guest's sandbox opens the SQLite file at `path` for its own kv),
   * remote plugins' cache, settings and memories, and the cron scheduler's slots and leases.
   */
  storage: Pick<Storage, "backend" | "path" | "pluginKv" | "cron" | "remotePlugins">;
  /** What the remote plugins of this host share (newRemoteHostState(), made with the runtime); a bare test host has none. */
  remote?: RemoteHostState;
}

/** State the remote plugins of one runtime share, kept on its host services (never in a process-wide table). */
export interface RemoteHostState {
  /** Event nesting across the worker boundary: their bindings and their event adapters share it. */
  readonly depths: DeliveryDepths;
  /** Their host bindings, made by the remote loader with the first remote plugin (the subsystem loads on demand). */
  bindings: RemoteHostBindings | null;
  /** The one timer that measures the memory of every remote plugin it runs. */
  readonly memoryTicker: MemoryTicker;
}

/** A loaded plugin inside one generation. */
export interface PluginInstance {
  readonly plugin: AdmittedPlugin;
  /**
   * Call an export of one capability's instance. `fn` is the WIT function name (e.g. "get-spec",
   * "execute", "process", "on-event", "run", "chat", "store-memory"); args and the resolved value use
   * jco's JS mapping of WIT types (strings, numbers, arrays, plain objects; `result<T, E>` resolves T or
   * rejects with a PrxError carrying E; `option<T>` is T | undefined). Calls to one capability instance are queued.
   */
  invoke(capability: CapabilityRef, fn: string, args: unknown[]): Promise<unknown>;
  /**
   * Where events from the guest's own `events.subscribe` calls on this capability go (default: straight to its
   * `on-event`). The hook adapter routes them through itself, so they count in its status like manifest events.
   */
  routeGuestEvents?(capability: CapabilityRef, deliver: GuestEventSink): void;
  /** Whether its guest runs now (a plugin started on its first call; absent: it runs from load to release). */
  runState?(): PluginRunState;
  /** Counters of the plugin's host-call budget (WASM guests; a remote plugin's are in its remote status). */
  hostCalls?(): HostCallBudgetStatus;
  /** Release after in-flight calls finish (old generation). Idempotent. */
  release(): Promise<void>;
}

/** `idle`: loaded, its guest not running (the next call starts it); `starting`; `running`. */
export const PluginRunStates = ["idle", "starting", "running"] as const;
export type PluginRunState = (typeof PluginRunStates)[number];

/** Delivers one bus event (topic, payload JSON) to a guest's on-event. */
export type GuestEventSink = (topic: string, payloadJson: string) => Promise<void>;

export interface PluginLoader {
  readonly kinds: readonly PluginKind[];
  /** `signal` aborts when the runtime stops while the load is still going on (a plugin slow to start). */
  load(plugin: AdmittedPlugin, host: PluginHostServices, signal?: AbortSignal): Promise<PluginInstance>;
}
