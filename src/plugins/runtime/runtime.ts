import { errorMessage, PrxError } from "../../core/errors.ts";
import type { Workspace } from "../../core/workspace.ts";
import { loadConfigCached } from "../../config/cache.ts";
import type { Config } from "../../config/schema.ts";
import type { ToolSource } from "../../tools/types.ts";
import { createPluginServices } from "./services.ts";
import { EventBus } from "../events/bus.ts";
import { defaultAdapterFactories } from "../adapters/index.ts";
import type { AdapterFactories } from "../adapters/types.ts";
import { createToolRouter } from "../adapters/tool-router.ts";
import { EntryHashes } from "../fingerprint.ts";
import { DiscoveryCache } from "../discovery-cache.ts";
import { buildGeneration, reloadFailed, worsenedError, type BuildResult, type LatePlugin } from "../generation-build.ts";
import { joinGeneration } from "../late-join.ts";
import { newRemoteHostState } from "../remote/host-state.ts";
import { discard, loaderResolver, type Loaded } from "../loading.ts";
import { Generation, GENERATION_DRAIN_TIMEOUT_MS } from "../generation.ts";
import type { LoaderResolver } from "../loading.ts";
import { StatusStore } from "../status.ts";
import type { ReplicaReloads } from "../fabric/index.ts";
import { ReplicaMembership, type FabricStats } from "../fabric/membership.ts";
import type { PluginHostServices } from "../types.ts";
import type {
  GenerationListener,
  PluginRuntimeOptions,
  PluginServiceParts,
  ReloadOptions,
  RuntimeServices,
  ServicesHost,
} from "./types.ts";


/** The runtime's services, with the runtime they belong to. */
export type PluginServices = PluginServiceParts & { readonly runtime: PluginRuntime };

/**
 * The plugin runtime of one canonical workspace: the active generation, the reload lock and the stable
 * proxies consumers hold. Obtain it with getPluginRuntime(); never construct a second one for a workspace.
 */
export class PluginRuntime implements ServicesHost {
  readonly status = new StatusStore();
  /** Stable ToolSource for the agent's tool registry; resolves the current generation at call time. */
  readonly tools: ToolSource;
  readonly host: PluginHostServices;
  private active: Generation | null = null;
  private lock: Promise<unknown> = Promise.resolve();
  private readonly retiring = new Set<Promise<void>>();
  private readonly listeners = new Set<GenerationListener>();
  private readonly loaders: LoaderResolver;
  private readonly factories: AdapterFactories;
  private readonly drainTimeoutMs: number;
  private stopped = false;
  private stopping: Promise<void> | null = null;
  private readonly hashes = new EntryHashes();
  private readonly discovery = new DiscoveryCache();
  /** Aborted when the runtime stops: plugins still loading (late ones) give up. */
  private readonly loads = new AbortController();
  /** The event bus this runtime created (when it was given no publisher); closed when the runtime stops. */
  private readonly ownBus: EventBus | null;
  /** The middleware runner, proxies, cron scheduler and hooks of this runtime; null unless its options asked for them. */
  readonly services: PluginServices | null;
  private users = 0;
  private lastConfig: Config | undefined;
  private readonly membership: ReplicaMembership | null;

  constructor(
    readonly workspace: Workspace,
    services: RuntimeServices,
    private readonly options: PluginRuntimeOptions = {},
    /** Called once the runtime has stopped (the registry of runtimes forgets it then). */
    private readonly onStopped: () => void = () => {},
  ) {
    const events = services.events ?? new EventBus({ logger: services.logger.child("events") });
    this.ownBus = services.events ? null : (events as EventBus);
    // only a runtime owning its bus links it to the other replicas
    this.membership =
      options.fabric && this.ownBus
        ? new ReplicaMembership(options.fabric, this.ownBus, (name, reload) => this.reload(name, reload), services.logger.child("fabric"))
        : null;
    this.host = { ...services, events, workspace, config: () => this.config(), remote: newRemoteHostState() };
    this.loaders = loaderResolver(options.loaders);
    this.factories = options.factories ?? defaultAdapterFactories();
    this.drainTimeoutMs = options.drainTimeoutMs ?? GENERATION_DRAIN_TIMEOUT_MS;
    this.tools = createToolRouter(() => this.active);
    // before the first build, so generation 1 activates its hooks and cron jobs like every later one
    this.services = options.services ? { ...createPluginServices(this, options.services), runtime: this } : null;
  }

  /** The active generation. Throws when start() has not completed. */
  current(): Generation {
    if (!this.active) {
      throw new PrxError("INTERNAL", `plugin runtime of ${this.workspace.root} is not started`, {
        hint: "await getPluginRuntime(...).start() before using plugins",
      });
    }
    return this.active;
  }

  get started(): boolean {
    return this.active !== null;
  }

  /** Count a user (an agent host, a command) and start: hosts of one workspace in a process share the runtime. */
  async acquire(): Promise<void> {
    this.users++;
    try {
      await this.membership?.join();
      await this.start();
    } catch (error) {
      await this.release();
      throw error;
    }
  }

  /** The last user's release closes the services and the bus it created, and stops the runtime. */
  async release(): Promise<void> {
    this.users = Math.max(0, this.users - 1);
    if (this.users > 0) return;
    await this.stop();
    await this.membership?.leave();
    this.ownBus?.close();
  }

  /** Reloads across replicas (null unless `[bus] backend = "redis"` connected this runtime to the others). */
  get replicas(): ReplicaReloads | null {
    return this.membership?.reloads ?? null;
  }

  /** Stats of the event link to the other replicas (null when there is none). */
  get fabricStats(): FabricStats | null {
    return this.membership?.stats ?? null;
  }

  /** Called synchronously after every swap (the cron scheduler, hook pumps). Returns an unsubscribe function. */
  onGeneration(listener: GenerationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Build generation 1 if not built yet. Plugin failures are statuses; only discovery/config failures throw. */
  start(): Promise<Generation> {
    return this.serialize(async () => this.active ?? this.publishBuilt(await this.build(1)));
  }

  /**
   * Build a candidate without touching the active generation: the named plugin and every plugin whose inputs changed
   * are rebuilt (all of them with `all`, or without a name), every other active plugin is carried over with its live
   * instance. A rebuilt plugin that fails keeps serving its previous instance (`failed_kept_old`), except the named
   * one. The candidate is published with one atomic swap unless it would take an active plugin down (the named one
   * failing, a plugin gone): then, unless `force`, it is refused and the previous generation keeps serving.
   * Errors: PLUGIN_NOT_FOUND (404) when the name is unknown to both, PLUGIN_RELOAD (400; 409 when refused).
   */
  reload(name?: string, options: ReloadOptions = {}): Promise<number> {
    return this.serialize(async () => {
      const previous = this.active ?? this.publishBuilt(await this.build(1));
      const what = name ? `reload of plugin "${name}"` : "plugin reload";
      const keeps = `generation ${previous.number} keeps serving`;
      let built: BuildResult;
      try {
        built = await this.build(previous.number + 1, {
          refuseOverLimit: true,
          previous,
          rebuild: name === undefined || options.all ? "all" : new Set([name]),
          force: options.force === true,
        });
      } catch (cause) {
        throw reloadFailed(`${what} failed, ${keeps}`, cause);
      }
      const candidate = built.generation;
      if (name !== undefined) {
        const record = candidate.plugin(name);
        if (!record || (record.state !== "active" && !options.force)) {
          await candidate.release(0, previous);
          if (!record && !previous.plugin(name)) {
            throw new PrxError("PLUGIN_NOT_FOUND", `no plugin named "${name}" in ${this.workspace.pluginsDir}`, {
              status: 404,
              hint: "list plugins with `prx plugins list`",
            });
          }
          if (!record) throw new PrxError("PLUGIN_RELOAD", `${what} failed, ${keeps}: it is no longer present in ${this.workspace.pluginsDir}`, { status: 400, hint: "put the plugin back, or reload every plugin to let it go" });
          if (record.state === "disabled") throw new PrxError("PLUGIN_RELOAD", `${what} failed, ${keeps}: it is disabled in config.toml`, { status: 400, hint: `set [plugins.${name}] enabled = true in config.toml` });
          throw reloadFailed(`${what} failed, ${keeps}`, record.error);
        }
      }
      if (built.worsened.length > 0) {
        await candidate.release(0, previous);
        throw worsenedError(what, keeps, built.worsened);
      }
      this.publishBuilt(built);
      return candidate.number;
    });
  }

  /** Close the services, release every generation and forget this runtime (the next getPluginRuntime builds a new one). */
  stop(): Promise<void> {
    // plugins still loading give up first, so a reload waiting on one does not hold the stop
    if (!this.stopping) this.loads.abort(new PrxError("ABORTED", `the plugin runtime of ${this.workspace.root} stopped`));
    return (this.stopping ??= this.serialize(async () => {
      // a service that fails to close must not keep the generations alive
      await this.services?.close().catch((error) => this.host.logger.warn(`plugin services did not close cleanly: ${errorMessage(error)}`));
      const last = this.active;
      this.active = null;
      if (last) this.retire(last, null);
      this.stopped = true;
      this.discovery.close();
      await this.settled();
      this.onStopped();
    }));
  }

  /** Resolves once every replaced generation has been released. */
  async settled(): Promise<void> {
    while (this.retiring.size > 0) await Promise.all([...this.retiring]);
  }

  private serialize<T>(task: () => Promise<T>): Promise<T> {
    const guarded = () => {
      if (this.stopped) {
        return Promise.reject(
          new PrxError("INTERNAL", `plugin runtime of ${this.workspace.root} was stopped`, {
            hint: "obtain a new one with getPluginRuntime()",
          }),
        );
      }
      return task();
    };
    const run = this.lock.then(guarded, guarded);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** Publish a build, then join each plugin that was still loading once it is ready. */
  private publishBuilt(built: BuildResult): Generation {
    const published = this.publish(built.generation);
    for (const late of built.late) late.load.then((loaded) => this.join(late, loaded));
    return published;
  }

  /**
   * A late plugin's load settled: publish the next generation with it (or with its failure), unless a newer build
   * replaced its record meanwhile or the runtime stopped (then its instance is released).
   */
  private join(late: LatePlugin, loaded: Loaded | null): void {
    const obsolete = async () => {
      if (loaded) await discard(loaded, this.host.logger);
    };
    this.serialize(async () => {
      const current = this.active;
      if (!current || current.plugin(late.published.name) !== late.published) return obsolete();
      const config = await this.readConfig();
      this.publish(await joinGeneration(current, late, loaded, { config, logger: this.host.logger }));
    }).catch((error) => {
      this.host.logger.warn(`plugin "${late.published.name}" was ready too late to join: ${errorMessage(error)}`);
      return obsolete();
    });
  }

  private publish(next: Generation): Generation {
    const previous = this.active;
    next.claimSlots();
    this.active = next;
    if (previous) this.retire(previous, next);
    for (const listener of this.listeners) {
      try {
        listener(next, previous);
      } catch (error) {
        this.host.logger.warn(`generation listener failed: ${errorMessage(error)}`);
      }
    }
    return next;
  }

  /** Release a replaced generation once drained, except the instances its successor carried over. */
  private retire(generation: Generation, successor: Generation | null): void {
    const done = generation
      .release(this.drainTimeoutMs, successor)
      .catch((error) => this.host.logger.warn(`release of generation ${generation.number} failed: ${errorMessage(error)}`))
      .finally(() => this.retiring.delete(done));
    this.retiring.add(done);
  }

  /** Read the configuration for a build; plugins see that read (host.config) until the next one. */
  private async readConfig(): Promise<Config> {
    const source = this.options.config;
    const config =
      typeof source === "function"
        ? await source()
        : (source ?? (await loadConfigCached(this.workspace.configPath, this.workspace.cacheDir)).config);
    this.lastConfig = config;
    return config;
  }

  private config(): Config {
    if (!this.lastConfig) throw new PrxError("PLUGIN_LOAD", "the plugin runtime has read no configuration yet (it reads one at each build)");
    return this.lastConfig;
  }

  private async build(number: number, options: Partial<Pick<Parameters<typeof buildGeneration>[0], "refuseOverLimit" | "previous" | "rebuild" | "force">> = {}): Promise<BuildResult> {
    await this.discovery.startWatching();
    return buildGeneration({
      number,
      ...options,
      pluginsDir: this.workspace.pluginsDir,
      config: await this.readConfig(),
      host: this.host,
      loaders: this.loaders,
      factories: this.factories,
      status: this.status,
      logger: this.host.logger,
      hashes: this.hashes,
      discovery: this.discovery,
      signal: this.loads.signal,
      ...(this.options.loadTimeoutMs !== undefined ? { loadTimeoutMs: this.options.loadTimeoutMs } : {}),
      ...(this.options.joinAfterMs !== undefined ? { joinAfterMs: this.options.joinAfterMs } : {}),
    });
  }
}
