import { errorMessage, PrxError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { ToolSpec } from "../providers/types.ts";
import type { ToolAdapterLookup } from "./adapters/tool-router.ts";
import type { CapabilityAdapter, GenerationAdapters } from "./adapters/types.ts";
import { MiddlewareChain } from "./middleware/chain.ts";
import { providersByName } from "./adapters/provider.ts";
import { storagesByName } from "./adapters/storage.ts";
import type { ManifestCapability, PluginManifest } from "./manifest.ts";
import type { PermissionDecision } from "./permissions.ts";
import { CapabilityTypes, type AdmittedPlugin, type PluginInstance, type PluginKind } from "./types.ts";
import type { ProviderAdapter, RemoteAdapter, StorageAdapter, ToolAdapter } from "./adapters/types.ts";

/** How long release() waits for in-flight calls before releasing instances anyway (sandbox timeouts end calls first). */
export const GENERATION_DRAIN_TIMEOUT_MS = 10 * 60_000;

/**
 * `conflict`: loaded, but it declares a tool name it may not serve (tool-claims.ts); it serves nothing. `starting`: its
 * load outlasted the build's wait; the runtime publishes the next generation with it once it is ready.
 */
export type PluginState = "active" | "error" | "disabled" | "conflict" | "starting";

/**
 * What the build of this generation did with a plugin: `built` (first generation or a full reload), `rebuilt` (named
 * in the reload, or its inputs changed), `carried_over` (unchanged: the previous generation's live instance, untouched),
 * `failed_kept_old` (rebuilding it failed, so the previous instance goes on serving; the error is in `reloadError`),
 * `rebuilding` (its new instance is still loading; the previous one serves until it joins).
 */
export const ReloadOutcomes = ["built", "rebuilt", "carried_over", "failed_kept_old", "rebuilding"] as const;
export type ReloadOutcome = (typeof ReloadOutcomes)[number];

/** One discovered plugin in one generation, whatever became of it. */
export interface PluginRecord {
  name: string;
  dirName: string;
  dir: string;
  version: string | null;
  kind: PluginKind | null;
  description: string;
  capabilities: ManifestCapability[];
  state: PluginState;
  error: PrxError | null;
  warnings: string[];
  permissions: PermissionDecision;
  manifest: PluginManifest | null;
  admitted: AdmittedPlugin | null;
  /** Digest of everything the plugin was built from (fingerprint.ts); null when it was not admitted. */
  fingerprint: string | null;
  outcome: ReloadOutcome;
  /** Why rebuilding failed, for `failed_kept_old`. */
  reloadError: PrxError | null;
}

/**
 * The generation a plugin's adapters count their calls on. A plugin carried over keeps its adapters: its slot moves to
 * the generation it was carried into when that one is published (claimSlots), so calls started before the swap drain
 * on the old one.
 */
export interface PluginSlot {
  generation: Generation;
  /**
   * Set once a generation holds the plugin. Before, while its adapters are built (get-spec), its calls count on no
   * generation: the instance belongs to its load, and the generation that started a late load may be released by then.
   */
  attached?: boolean;
}

interface Held {
  instance: PluginInstance;
  adapters: CapabilityAdapter[];
  slot: PluginSlot;
  remote?: RemoteAdapter;
}

const NOTHING_KEPT: ReadonlySet<PluginInstance> = new Set();

const NO_REMOTES: RemoteAdapter[] = [];

function emptyAdapters(): GenerationAdapters {
  return { tool: [], middleware: [], hook: [], cron: [], provider: [], storage: [] };
}

export async function settleAll(logger: Logger, what: string, tasks: (() => Promise<unknown>)[]): Promise<void> {
  const results = await Promise.allSettled(tasks.map((task) => task()));
  for (const result of results) {
    if (result.status === "rejected") logger.warn(`${what} failed: ${errorMessage(result.reason)}`);
  }
}

export class Generation implements ToolAdapterLookup {
  readonly adapters: GenerationAdapters = emptyAdapters();
  /** This generation's middleware, in chain order; built when it is sealed. */
  middleware = new MiddlewareChain([]);
  /** The `wasm:` providers and storage backends it exports, by name; built when it is sealed. */
  providers = new Map<string, ProviderAdapter>();
  storages = new Map<string, StorageAdapter>();
  private readonly tools = new Map<string, ToolAdapter>();
  private specs: ToolSpec[] | undefined;
  private remoteList: RemoteAdapter[] | undefined;
  private byName: Map<string, number> | undefined;
  private readonly held = new Map<string, Held>();
  private inflight = 0;
  private drained: (() => void) | null = null;
  private releasing: Promise<void> | null = null;
  private released = false;

  constructor(
    readonly number: number,
    readonly plugins: readonly PluginRecord[],
    private readonly logger: Logger,
  ) {}

  /**
   * A build asks for every plugin of the previous generation by name: an index of positions, not a scan per lookup.
   * The record is read at its position, so a record replaced in place (a late plugin published) is the one found.
   */
  plugin(name: string): PluginRecord | undefined {
    if (!this.byName) {
      this.byName = new Map();
      this.plugins.forEach((p, i) => {
        if (!this.byName!.has(p.name)) this.byName!.set(p.name, i);
      });
    }
    const at = this.byName.get(name);
    const found = at === undefined ? undefined : this.plugins[at];
    return found?.name === name ? found : this.plugins.find((p) => p.name === name);
  }

  instance(name: string): PluginInstance | undefined {
    return this.held.get(name)?.instance;
  }

  /** The context/evaluator/model/route surfaces of a loaded remote plugin. */
  remote(name: string): RemoteAdapter | undefined {
    return this.held.get(name)?.remote;
  }

  /** One array until a plugin is attached or carried in (every turn asks for it; most plugins are not remote). */
  remotes(): RemoteAdapter[] {
    if (this.remoteList) return this.remoteList;
    const remotes = [...this.held.values()].flatMap((h) => (h.remote ? [h.remote] : []));
    return (this.remoteList = remotes.length === 0 ? NO_REMOTES : remotes);
  }

  tool(name: string): ToolAdapter | undefined {
    return this.tools.get(name);
  }

  /** One array for the generation's life (the tool registry compares lists by identity). */
  toolSpecs(): ToolSpec[] {
    return (this.specs ??= this.adapters.tool.map((adapter) => adapter.spec));
  }

  /** Adapters of one plugin in this generation. */
  adaptersOf(plugin: string): CapabilityAdapter[] {
    return this.held.get(plugin)?.adapters ?? [];
  }

  get inFlight(): number {
    return this.inflight;
  }

  get isReleased(): boolean {
    return this.released;
  }

  /** Count a call as in flight; call the returned function exactly once when it ends. */
  acquire(): () => void {
    if (this.released) {
      throw new PrxError("PLUGIN_RELOAD", `plugin generation ${this.number} was released; resolve the current one`);
    }
    this.inflight++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.inflight--;
      if (this.inflight === 0) this.drained?.();
    };
  }

  track<T>(fn: () => Promise<T>): Promise<T> {
    const done = this.acquire();
    try {
      return fn().finally(done);
    } catch (error) {
      done();
      throw error;
    }
  }

  /** @internal a plugin loaded for this generation: its slot points here from the start. */
  attach(name: string, instance: PluginInstance, adapters: CapabilityAdapter[], slot: PluginSlot, remote?: RemoteAdapter): void {
    this.hold(name, { instance, adapters, slot, ...(remote ? { remote } : {}) });
  }

  /** @internal serve a plugin of `from` (the current generation) here, with its live instance and adapters. */
  carry(name: string, from: Generation): void {
    const held = from.held.get(name);
    if (!held) throw new PrxError("INTERNAL", `generation ${from.number} holds no live plugin "${name}" to carry over`);
    this.hold(name, { ...held });
  }

  /** The live instances this generation serves: a generation it replaces must not release them. */
  liveInstances(): ReadonlySet<PluginInstance> {
    return new Set([...this.held.values()].map((h) => h.instance));
  }

  /** @internal once this generation is published, every plugin it serves counts its calls here. */
  claimSlots(): void {
    for (const held of this.held.values()) held.slot.generation = this;
  }

  private hold(name: string, held: Held): void {
    held.slot.attached = true;
    this.held.set(name, held);
    this.specs = undefined;
    this.remoteList = undefined;
    for (const adapter of held.adapters) {
      (this.adapters[adapter.type] as CapabilityAdapter[]).push(adapter);
      if (adapter.type === "tool") this.tools.set((adapter as ToolAdapter).spec.name, adapter as ToolAdapter);
    }
  }

  /** @internal once every plugin is attached: sort (priority, lower first, then plugin name) and build the chain. */
  seal(): void {
    this.specs = undefined;
    for (const type of CapabilityTypes) {
      (this.adapters[type] as CapabilityAdapter[]).sort(
        (a, b) => a.capability.priority - b.capability.priority || (a.plugin < b.plugin ? -1 : a.plugin > b.plugin ? 1 : 0),
      );
    }
    this.middleware = new MiddlewareChain(this.adapters.middleware.map((a) => a.entry));
    this.providers = providersByName(this.adapters.provider);
    this.storages = storagesByName(this.adapters.storage);
  }

  /**
   * Wait for in-flight calls (bounded by drainTimeoutMs), then dispose the adapters and release the instances, except
   * those in `kept`: the live instances of the generation that goes on serving them (liveInstances()). Idempotent.
   */
  release(drainTimeoutMs = GENERATION_DRAIN_TIMEOUT_MS, kept: ReadonlySet<PluginInstance> = NOTHING_KEPT): Promise<void> {
    this.releasing ??= (async () => {
      if (this.inflight > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const drained = new Promise<boolean>((resolve) => (this.drained = () => resolve(true)));
        const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), drainTimeoutMs)));
        const ok = await Promise.race([drained, timedOut]);
        clearTimeout(timer);
        if (!ok) this.logger.warn(`generation ${this.number}: ${this.inflight} call(s) still running after ${drainTimeoutMs} ms; releasing anyway`);
      }
      this.released = true;
      const owned = [...this.held.values()].filter((h) => !kept.has(h.instance));
      const adapters = owned.flatMap((h) => h.adapters);
      await settleAll(this.logger, `generation ${this.number}: dispose adapter`, adapters.map((a) => async () => a.dispose?.()));
      await settleAll(this.logger, `generation ${this.number}: release plugin`, owned.map((h) => () => h.instance.release()));
    })();
    return this.releasing;
  }
}
