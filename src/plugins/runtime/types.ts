import type { MiddlewareRunner } from "../../contracts/envelopes.ts";
import type { Config } from "../../config/schema.ts";
import type { EventPublisher } from "../../core/events.ts";
import type { Workspace } from "../../core/workspace.ts";
import type { CurrentRemotes } from "../adapters/remote-proxies.ts";
import type { StableProviders } from "../adapters/stable-providers.ts";
import type { StorageProxies } from "../adapters/proxies.ts";
import type { AdapterFactories } from "../adapters/types.ts";
import type { CronScheduler } from "../cron/scheduler.ts";
import type { CronTimers } from "../cron/types.ts";
import type { EventBusApi } from "../events/types.ts";
import type { ReplicaFabricOptions } from "../fabric/index.ts";
import type { Generation } from "../generation.ts";
import type { HooksManager } from "../hooks/manager.ts";
import type { PluginHostServices, PluginLoader } from "../types.ts";

/** What a runtime is given; without `events` it creates its own event bus and closes it when it stops. */
export type RuntimeServices = Omit<PluginHostServices, "workspace" | "events" | "config" | "remote"> & { events?: EventPublisher };

export interface PluginServicesOptions {
  /** Start the cron scheduler (default true). When false, jobs are registered (cron_run works) but never fire. */
  cron?: boolean;
  /** Feed bus events to hooks.json command hooks (default true). */
  hooks?: boolean;
  /** The cron scheduler's clock and timers (default BACKGROUND_TIMERS). */
  cronClock?: CronTimers;
}

export interface PluginRuntimeOptions {
  /** Read at every build (start and each reload) for enabled/grant/config. Default: the workspace's config.toml. */
  config?: Config | (() => Config | Promise<Config>);
  /** Loaders for this runtime only; they win over the built-ins. */
  loaders?: PluginLoader[];
  /** Adapter factories per capability type (default: defaultAdapterFactories()). */
  factories?: AdapterFactories;
  drainTimeoutMs?: number;
  /** Per-plugin load timeout (default PLUGIN_LOAD_TIMEOUT_MS). */
  loadTimeoutMs?: number;
  /** How long a build waits for plugins before publishing without the late ones (default PLUGIN_JOIN_WAIT_MS). */
  joinAfterMs?: number;
  /**
   * `[bus] backend = "redis"`: the runtime's own bus exchanges events with the other replicas, and a reload through
   * its API reloads them too (src/plugins/fabric).
   */
  fabric?: ReplicaFabricOptions;
  /**
   * The services an agent host uses (middleware runner, proxies, cron scheduler, hooks.json, hook pumps), made with
   * the runtime. Without them (`prx plugins list`) no hook subscribes and no job is scheduled.
   */
  services?: PluginServicesOptions;
}

export type GenerationListener = (next: Generation, previous: Generation | null) => void;

export interface ReloadOptions {
  /** Rebuild every plugin, changed or not (a named reload rebuilds the named one and the changed ones). */
  all?: boolean;
  /** Publish even when an active plugin would fail or disappear (it is then published failed or gone). */
  force?: boolean;
}

/** What the services need of their runtime. */
export interface ServicesHost {
  readonly host: PluginHostServices;
  readonly workspace: Workspace;
  readonly started: boolean;
  current(): Generation;
  onGeneration(listener: GenerationListener): () => void;
}

/**
 * What the runtime of a workspace offers beyond tools, for its whole life: the stable middleware runner, provider
 * and storage proxies, the cron scheduler and the hooks.json manager. Generation swaps activate the new
 * generation's hook pumps (closing the old ones) and hand its cron jobs to the scheduler.
 */
export interface PluginServiceParts {
  /** The runtime's event bus, or null when its publisher cannot subscribe. */
  readonly bus: EventBusApi | null;
  readonly cron: CronScheduler;
  readonly hooks: HooksManager;
  readonly middleware: MiddlewareRunner;
  readonly providers: StableProviders;
  readonly storages: StorageProxies;
  /** Stable `remote:<plugin>` providers (remote plugins that declare models). */
  readonly remoteProviders: StableProviders;
  /** The current generation's remote plugins (prompt context, evaluators, gateway routes resolve through it). */
  readonly remotes: CurrentRemotes;
  /** Deliver queued events (bounded), close every pump, stop the scheduler. Idempotent. */
  close(): Promise<void>;
}
