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
import { VersionedMap } from "./versioned-map.ts";
import type { Config } from "../config/schema.ts";
import type { DiscoveredPlugin } from "./discovered.ts";
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
 * Where the calls of the plugins a published generation serves are counted: one per runtime, shared by the
 * generations derived from one another, and moved to each generation as it is published. A plugin carried over keeps
 * its adapters, whose slot follows the lineage, so publishing moves every carried plugin at once.
 */
interface Lineage {
  generation: Generation | null;
}

/**
 * The generation a plugin's adapters count their calls on: `generation` until the plugin is published with a
 * generation, then the lineage's (it moves with every publish that carries the plugin over), and `generation` again,
 * pinned to the last one that served it, once a publish leaves it behind: calls started before the swap drain there.
 */
export interface PluginSlot {
  generation: Generation;
  lineage?: Lineage;
  /**
   * Set once a generation holds the plugin. Before, while its adapters are built (get-spec), its calls count on no
   * generation: the instance belongs to its load, and the generation that started a late load may be released by then.
   */
  attached?: boolean;
}

/** What a generation was built from: the discovery's result and the config, each the very object. */
export interface GenerationSources {
  discovered: readonly DiscoveredPlugin[];
  config: Config;
  /** The first entry refused because plugins/ held too many (discovery.ts isOverLimit). */
  overLimit: DiscoveredPlugin | undefined;
}

/** The generation a plugin's calls count on now. */
export function slotGeneration(slot: PluginSlot): Generation {
  return slot.lineage?.generation ?? slot.generation;
}

interface Held {
  name: string;
  instance: PluginInstance;
  adapters: CapabilityAdapter[];
  slot: PluginSlot;
  remote?: RemoteAdapter;
}

const NO_REMOTES: RemoteAdapter[] = [];

/** A chain holds nothing it changes after construction: one empty chain serves every generation without middleware. */
const NO_MIDDLEWARE = new MiddlewareChain([]);

function emptyAdapters(): GenerationAdapters {
  return { tool: [], middleware: [], hook: [], cron: [], provider: [], storage: [] };
}

/** Chain order: priority (lower first), then plugin name. */
function byPriority(a: CapabilityAdapter, b: CapabilityAdapter): number {
  return a.capability.priority - b.capability.priority || (a.plugin < b.plugin ? -1 : a.plugin > b.plugin ? 1 : 0);
}

/** Where `adapter` goes in a sorted list: after every adapter that does not sort after it (a stable insertion). */
function insertionPoint(list: readonly CapabilityAdapter[], adapter: CapabilityAdapter): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (byPriority(list[mid]!, adapter) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

export async function settleAll(logger: Logger, what: string, tasks: (() => Promise<unknown>)[]): Promise<void> {
  const results = await Promise.allSettled(tasks.map((task) => task()));
  for (const result of results) {
    if (result.status === "rejected") logger.warn(`${what} failed: ${errorMessage(result.reason)}`);
  }
}

export class Generation implements ToolAdapterLookup {
  /** Each list in chain order (priority, then plugin name); a list no plugin changed is the previous generation's. */
  readonly adapters: GenerationAdapters;
  /** This generation's middleware, in chain order; built when it is sealed (kept when no middleware changed). */
  middleware: MiddlewareChain;
  /** The `wasm:` providers and storage backends it exports, by name; built when it is sealed. */
  providers: Map<string, ProviderAdapter>;
  storages: Map<string, StorageAdapter>;
  private tools = new VersionedMap<string, ToolAdapter>();
  private specs: ToolSpec[] | undefined;
  private remoteList: RemoteAdapter[] | undefined;
  private byName: Map<string, number> | undefined;
  private held = new VersionedMap<string, Held>();
  private lineage: Lineage;
  /** The generation this one was derived from (carryFrom): it serves on every plugin of `base` except `dropped`. */
  private base: Generation | null = null;
  /** What `base` held that this generation does not serve: released with `base`. */
  private dropped: Held[] = [];
  /** Plugins loaded for this generation (attach), not carried: their slots join the lineage when it is published. */
  private readonly attached: Held[] = [];
  /** The lists this generation copied before changing them (a list it did not change stays the base's). */
  private readonly owned = new Set<keyof GenerationAdapters>();
  /** What it was built from (generation-build.ts): a build from the same ones looks again only at `unsettled`. */
  sources: GenerationSources | undefined;
  /** Positions in `plugins` of the records a build from the same sources has to decide again (settled: the rest). */
  unsettled: number[] = [];
  private inflight = 0;
  private drained: (() => void) | null = null;
  private releasing: Promise<void> | null = null;
  private released = false;

  constructor(
    readonly number: number,
    readonly plugins: readonly PluginRecord[],
    private readonly logger: Logger,
  ) {
    this.adapters = emptyAdapters();
    for (const type of CapabilityTypes) this.owned.add(type);
    this.middleware = NO_MIDDLEWARE;
    this.providers = new Map();
    this.storages = new Map();
    this.lineage = { generation: null };
  }

  /**
   * A build asks for every plugin of the previous generation by name: an index of positions, not a scan per lookup.
   * The record is read at its position, so a record replaced in place (a late plugin published) is the one found.
   * A generation whose plugins sit where its base's did (a reload that added or removed none) shares its index.
   */
  plugin(name: string): PluginRecord | undefined {
    const at = this.position(name);
    const found = at === undefined ? undefined : this.plugins[at];
    return found?.name === name ? found : this.plugins.find((p) => p.name === name);
  }

  /** Where the first record named `name` sits in `plugins` (a record replaced in place since may have another name). */
  position(name: string): number | undefined {
    return this.index().get(name);
  }

  /** @internal its plugins sit where `base`'s do (the same names in the same places): it uses base's index. */
  adoptIndex(base: Generation): void {
    this.byName = base.index();
  }

  private index(): Map<string, number> {
    if (!this.byName) {
      const byName = new Map<string, number>();
      this.plugins.forEach((p, i) => {
        if (!byName.has(p.name)) byName.set(p.name, i);
      });
      this.byName = byName;
    }
    return this.byName;
  }

  /** The plugins it holds a live instance of. */
  heldNames(): string[] {
    return this.held.entries().map(([name]) => name);
  }

  instance(name: string): PluginInstance | undefined {
    return this.held.get(name)?.instance;
  }

  /** The context/evaluator/model/route surfaces of a loaded remote plugin. */
  remote(name: string): RemoteAdapter | undefined {
    return this.held.get(name)?.remote;
  }

  /** One array for the generation's life (every turn asks for it; most plugins are not remote). */
  remotes(): RemoteAdapter[] {
    if (this.remoteList) return this.remoteList;
    let remotes: RemoteAdapter[];
    if (this.base) {
      remotes = [...this.base.remotes()];
      for (const held of this.dropped) if (held.remote) remotes.splice(remotes.indexOf(held.remote), 1);
      for (const held of this.attached) if (held.remote) remotes.push(held.remote);
    } else remotes = this.held.values().flatMap((h) => (h.remote ? [h.remote] : []));
    return (this.remoteList = remotes.length === 0 ? NO_REMOTES : remotes);
  }

  tool(name: string): ToolAdapter | undefined {
    return this.tools.get(name);
  }

  /** One array for the generation's life (the tool registry compares lists by identity); the base's while no tool changed. */
  toolSpecs(): ToolSpec[] {
    if (this.specs) return this.specs;
    if (this.base && this.adapters.tool === this.base.adapters.tool) return (this.specs = this.base.toolSpecs());
    return (this.specs = this.adapters.tool.map((adapter) => adapter.spec));
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
    const held: Held = { name, instance, adapters, slot, ...(remote ? { remote } : {}) };
    slot.attached = true;
    this.held = this.held.with([[name, held]]);
    this.attached.push(held);
    if (held.remote) this.remoteList = undefined;
    for (const adapter of adapters) {
      const list = this.own(adapter.type);
      list.splice(insertionPoint(list, adapter), 0, adapter);
      if (adapter.type === "tool") this.tools = this.tools.with([[(adapter as ToolAdapter).spec.name, adapter as ToolAdapter]]);
    }
  }

  /**
   * @internal serve every plugin `from` (the current generation) holds except those named in `drop`, with its live
   * instance and adapters; call it once, before any attach. It costs what is dropped, nothing per plugin carried: the
   * maps are new versions of `from`'s, and the adapter lists no dropped plugin was in are `from`'s own.
   */
  carryFrom(from: Generation, drop: Iterable<string>): void {
    if (this.base || this.attached.length > 0) throw new PrxError("INTERNAL", `generation ${this.number} carries plugins from one generation, before attaching any`);
    this.base = from;
    this.lineage = from.lineage;
    for (const name of drop) {
      const held = from.held.get(name);
      if (held && !this.dropped.includes(held)) this.dropped.push(held);
    }
    this.held = from.held.with(this.dropped.map((h) => [h.name, undefined] as const));
    this.tools = from.tools.with(
      this.dropped.flatMap((h) => h.adapters.filter((a) => a.type === "tool").map((a) => [(a as ToolAdapter).spec.name, undefined] as const)),
    );
    this.owned.clear();
    for (const type of CapabilityTypes) (this.adapters as Record<string, CapabilityAdapter[]>)[type] = from.adapters[type];
    for (const held of this.dropped) {
      for (const adapter of held.adapters) {
        const list = this.own(adapter.type);
        const at = list.indexOf(adapter);
        if (at >= 0) list.splice(at, 1);
      }
    }
    this.remoteList = this.dropped.some((h) => h.remote) ? undefined : from.remoteList;
  }

  /** The list of `type` to change, copied first while it is still the base's. */
  private own(type: keyof GenerationAdapters): CapabilityAdapter[] {
    if (!this.owned.has(type)) {
      (this.adapters as Record<string, CapabilityAdapter[]>)[type] = [...this.adapters[type]];
      this.owned.add(type);
    }
    return this.adapters[type] as CapabilityAdapter[];
  }

  /** The live instances this generation serves: a generation it replaces must not release them. */
  liveInstances(): ReadonlySet<PluginInstance> {
    return new Set(this.held.values().map((h) => h.instance));
  }

  /**
   * @internal this generation is published: every plugin it serves counts its calls here from now on (its base's
   * carried plugins follow the lineage, the ones it attached join it), and the plugins it dropped stay pinned to the
   * generation they served on. Costs what the build changed, not what it carried.
   */
  claimSlots(): void {
    for (const held of this.dropped) {
      held.slot.generation = slotGeneration(held.slot);
      delete held.slot.lineage;
    }
    for (const held of this.attached) held.slot.lineage = this.lineage;
    this.lineage.generation = this;
  }

  /** @internal once every plugin is attached: build the chain and the provider and storage maps of what changed. */
  seal(): void {
    this.specs = undefined;
    this.held.makeCurrent();
    this.tools.makeCurrent();
    const base = this.base;
    const middleware = this.adapters.middleware;
    if (base && middleware === base.adapters.middleware) this.middleware = base.middleware;
    else this.middleware = middleware.length === 0 ? NO_MIDDLEWARE : new MiddlewareChain(middleware.map((a) => a.entry));
    this.providers = base && this.adapters.provider === base.adapters.provider ? base.providers : providersByName(this.adapters.provider);
    this.storages = base && this.adapters.storage === base.adapters.storage ? base.storages : storagesByName(this.adapters.storage);
  }

  /**
   * Wait for in-flight calls (bounded by drainTimeoutMs), then dispose the adapters and release the instances, except
   * those `kept` serves: the generation that goes on serving them (its successor, or the one it was derived from).
   * Idempotent.
   */
  release(drainTimeoutMs = GENERATION_DRAIN_TIMEOUT_MS, kept: Generation | null = null): Promise<void> {
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
      const owned = this.ownedBeside(kept);
      const adapters = owned.flatMap((h) => h.adapters);
      await settleAll(this.logger, `generation ${this.number}: dispose adapter`, adapters.map((a) => async () => a.dispose?.()));
      await settleAll(this.logger, `generation ${this.number}: release plugin`, owned.map((h) => () => h.instance.release()));
    })();
    return this.releasing;
  }

  /** What this generation holds that `kept` does not serve: for its successor what that one dropped, for its base what it attached. */
  private ownedBeside(kept: Generation | null): Held[] {
    if (!kept) return this.held.values();
    if (kept.base === this) return kept.dropped;
    if (this.base === kept) return this.attached;
    const live = kept.liveInstances();
    return this.held.values().filter((h) => !live.has(h.instance));
  }
}
