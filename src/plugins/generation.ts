import { errorMessage, PrxError, toPrxError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { Config } from "../config/schema.ts";
import type { ToolSpec } from "../providers/types.ts";
import type { AdapterFactories, CapabilityAdapter, GenerationAdapters } from "./adapters/types.ts";
import type { ToolAdapter } from "./adapters/tool.ts";
import type { ToolAdapterLookup } from "./adapters/tool-router.ts";
import { remoteAdaptersOf, type RemoteAdapter } from "./adapters/remote.ts";
import { discoverPlugins, isOverLimit, type DiscoveredPlugin } from "./discovery.ts";
import type { ManifestCapability, PluginManifest } from "./manifest.ts";
import { decidePermissions, missingGrantsError, type PermissionDecision } from "./permissions.ts";
import type { StatusStore } from "./status.ts";
import { claimToolNames } from "./tool-claims.ts";
import { RESERVED_TOOL_NAMES } from "../tools/builtins/names.ts";
import { CapabilityTypes, type AdmittedPlugin, type CapabilityType, type PluginHostServices, type PluginInstance, type PluginKind, type PluginLoader } from "./types.ts";

/** How long release() waits for in-flight calls before releasing instances anyway (sandbox timeouts end calls first). */
export const GENERATION_DRAIN_TIMEOUT_MS = 10 * 60_000;

/** Longest a loader may take to load one plugin (the WASM sandbox has its own, shorter init timeout). */
export const PLUGIN_LOAD_TIMEOUT_MS = 60_000;
/** Headroom over a remote plugin's own ready_timeout_ms, so its supervisor reports the timeout, not the generation. */
export const REMOTE_LOAD_MARGIN_MS = 5_000;

/** `conflict`: loaded, but it declares a tool name it may not serve (tool-claims.ts); it serves nothing. */
export type PluginState = "active" | "error" | "disabled" | "conflict";

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
}

/** Loader lookup by kind; the runtime combines its own, the global registry and lazily imported built-ins. */
export type LoaderResolver = (kind: PluginKind) => Promise<PluginLoader | undefined>;

export interface BuildInput {
  number: number;
  pluginsDir: string;
  config: Config;
  host: PluginHostServices;
  loaders: LoaderResolver;
  factories: AdapterFactories;
  status: StatusStore;
  logger: Logger;
  /** Default PLUGIN_LOAD_TIMEOUT_MS. */
  loadTimeoutMs?: number;
  /** Inspect these directories instead of discovering `pluginsDir` (prx plugins validate). */
  discovered?: DiscoveredPlugin[];
  /**
   * Fail the whole build when plugins/ holds more entries than admitted (a reload: the old generation keeps
   * serving). Without it (a start) what fits is admitted and the rest listed as refused.
   */
  refuseOverLimit?: boolean;
}

function emptyAdapters(): GenerationAdapters {
  return { tool: [], middleware: [], hook: [], cron: [], provider: [], storage: [] };
}

const NO_REMOTES: RemoteAdapter[] = [];

export class Generation implements ToolAdapterLookup {
  readonly adapters: GenerationAdapters = emptyAdapters();
  private readonly tools = new Map<string, ToolAdapter>();
  private specs: ToolSpec[] | undefined;
  private readonly instances = new Map<string, PluginInstance>();
  private readonly remoteAdapters = new Map<string, RemoteAdapter>();
  private inflight = 0;
  private drained: (() => void) | null = null;
  private releasing: Promise<void> | null = null;
  private released = false;

  constructor(
    readonly number: number,
    readonly plugins: readonly PluginRecord[],
    private readonly logger: Logger,
  ) {}

  plugin(name: string): PluginRecord | undefined {
    return this.plugins.find((p) => p.name === name);
  }

  instance(name: string): PluginInstance | undefined {
    return this.instances.get(name);
  }

  /** The context/evaluator/model/route surfaces of a loaded remote plugin. */
  remote(name: string): RemoteAdapter | undefined {
    return this.remoteAdapters.get(name);
  }

  remotes(): RemoteAdapter[] {
    return this.remoteAdapters.size === 0 ? NO_REMOTES : [...this.remoteAdapters.values()];
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
    return CapabilityTypes.flatMap((type) => (this.adapters[type] as CapabilityAdapter[]).filter((a) => a.plugin === plugin));
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

  /** @internal used while building */
  attach(name: string, instance: PluginInstance, adapters: CapabilityAdapter[], remote?: RemoteAdapter): void {
    this.instances.set(name, instance);
    this.specs = undefined;
    if (remote) this.remoteAdapters.set(name, remote);
    for (const adapter of adapters) {
      (this.adapters[adapter.type] as CapabilityAdapter[]).push(adapter);
      if (adapter.type === "tool") this.tools.set((adapter as ToolAdapter).spec.name, adapter as ToolAdapter);
    }
  }

  /** @internal sort chains once every plugin is attached: priority (lower first), then plugin name. */
  seal(): void {
    this.specs = undefined;
    for (const type of CapabilityTypes) {
      (this.adapters[type] as CapabilityAdapter[]).sort(
        (a, b) => a.capability.priority - b.capability.priority || (a.plugin < b.plugin ? -1 : a.plugin > b.plugin ? 1 : 0),
      );
    }
  }

  /** Wait for in-flight calls (bounded by drainTimeoutMs), then dispose adapters and release instances. Idempotent. */
  release(drainTimeoutMs = GENERATION_DRAIN_TIMEOUT_MS): Promise<void> {
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
      const adapters = CapabilityTypes.flatMap((type) => this.adapters[type] as CapabilityAdapter[]);
      await settleAll(this.logger, `generation ${this.number}: dispose adapter`, adapters.map((a) => async () => a.dispose?.()));
      await settleAll(this.logger, `generation ${this.number}: release plugin`, [...this.instances.values()].map((i) => () => i.release()));
    })();
    return this.releasing;
  }
}

async function settleAll(logger: Logger, what: string, tasks: (() => Promise<unknown>)[]): Promise<void> {
  const results = await Promise.allSettled(tasks.map((task) => task()));
  for (const result of results) {
    if (result.status === "rejected") logger.warn(`${what} failed: ${errorMessage(result.reason)}`);
  }
}

function recordFrom(found: DiscoveredPlugin): PluginRecord {
  const manifest = found.ok ? found.manifest : (found.manifest ?? null);
  return {
    name: found.name,
    dirName: found.dirName,
    dir: found.dir,
    version: manifest?.plugin.version ?? null,
    kind: found.ok ? found.kind : null,
    description: manifest?.plugin.description ?? "",
    capabilities: manifest?.capabilities ?? [],
    state: found.ok ? "active" : "error",
    error: found.ok ? null : found.error,
    warnings: [...found.warnings],
    permissions: { required: manifest?.permissions.required ?? [], optional: manifest?.permissions.optional ?? [], granted: [], missing: [] },
    manifest,
    admitted: null,
  };
}

function fail(record: PluginRecord, error: unknown, code: "PLUGIN_LOAD" | "PLUGIN_ADMISSION" = "PLUGIN_LOAD"): void {
  record.state = "error";
  record.error = toPrxError(error, code, `plugin "${record.name}"`);
}

/** Admission against config: enabled, duplicate names, permissions. Sets record.admitted when it may load. */
function admit(record: PluginRecord, found: DiscoveredPlugin, config: Config, seen: Set<string>): void {
  if (seen.has(record.name)) {
    fail(record, new PrxError("PLUGIN_ADMISSION", `plugin name "${record.name}" in ${record.dir} is already used by another directory`), "PLUGIN_ADMISSION");
    return;
  }
  seen.add(record.name);
  const grant = config.plugins[record.name];
  if (grant && !grant.enabled) {
    record.state = "disabled";
    record.error = null;
    return;
  }
  if (!found.ok) return;
  const manifest = found.manifest;
  record.permissions = decidePermissions(manifest, grant);
  if (record.permissions.missing.length > 0) {
    fail(record, missingGrantsError(record.name, record.permissions.missing), "PLUGIN_ADMISSION");
    return;
  }
  const r = manifest.resources;
  record.admitted = {
    name: record.name,
    version: manifest.plugin.version,
    kind: found.kind,
    dir: found.dir,
    entryPath: found.entryPath,
    capabilities: manifest.capabilities.map((c) => ({ type: c.type, name: c.name })),
    resources: {
      maxMemoryMb: r.max_memory_mb,
      maxExecutionTimeMs: r.max_execution_time_ms,
      maxHttpRequestsPerCall: r.max_http_requests_per_call,
      maxKvStorageMb: r.max_kv_storage_mb,
      maxFuel: r.max_fuel ?? null,
    },
    granted: new Set(record.permissions.granted),
    config: { ...manifest.config, ...(grant?.config ?? {}) },
    httpAllowlist: manifest.permissions.http_allowlist,
    ...(manifest.remote && found.kind === "remote" ? { remote: manifest.remote } : {}),
  };
}

/** The default load limit; a remote plugin may declare a ready timeout longer than PLUGIN_LOAD_TIMEOUT_MS. */
export function loadTimeoutFor(plugin: AdmittedPlugin): number {
  return Math.max(PLUGIN_LOAD_TIMEOUT_MS, (plugin.remote?.ready_timeout_ms ?? 0) + REMOTE_LOAD_MARGIN_MS);
}

/** A loader that never settles must not hold the whole candidate: it fails the plugin; a late instance is released. */
function loadWithin(loader: PluginLoader, plugin: AdmittedPlugin, input: BuildInput): Promise<PluginInstance> {
  const limit = input.loadTimeoutMs ?? loadTimeoutFor(plugin);
  return new Promise((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(new PrxError("PLUGIN_TIMEOUT", `plugin "${plugin.name}" did not load within ${limit} ms`));
    }, limit);
    loader.load(plugin, input.host).then(
      (instance) => {
        clearTimeout(timer);
        if (!late) return resolve(instance);
        void instance.release().catch((e) => input.logger.warn(`late instance of "${plugin.name}": release failed: ${errorMessage(e)}`));
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

interface Loaded {
  record: PluginRecord;
  instance: PluginInstance;
  adapters: CapabilityAdapter[];
  remote?: RemoteAdapter;
}

async function loadOne(generation: Generation, record: PluginRecord, input: BuildInput): Promise<Loaded | null> {
  const admitted = record.admitted!;
  const loader = await input.loaders(admitted.kind);
  if (!loader) {
    fail(record, new PrxError("PLUGIN_UNSUPPORTED", `no loader for plugin kind "${admitted.kind}" in this build`));
    return null;
  }
  let instance: PluginInstance;
  try {
    instance = await loadWithin(loader, admitted, input);
  } catch (cause) {
    fail(record, cause);
    return null;
  }
  const adapters: CapabilityAdapter[] = [];
  try {
    if (admitted.kind === "remote") {
      const built = await remoteAdaptersOf(record, instance, {
        factory: input.factories.remote,
        status: input.status,
        track: (fn) => generation.track(fn),
        host: input.host,
        logger: input.logger,
      });
      return { record, instance, adapters: built.adapters, remote: built.remote };
    }
    for (const capability of record.capabilities) {
      const factory = input.factories[capability.type] as ((c: unknown) => Promise<CapabilityAdapter>) | undefined;
      if (!factory) {
        record.warnings.push(`${capability.type} "${capability.name}": no ${capability.type} adapter in this build yet; not wired`);
        continue;
      }
      adapters.push(
        await factory({
          plugin: admitted,
          capability,
          instance,
          status: input.status.for(record.name, capability.type, capability.name),
          track: (fn: () => Promise<unknown>) => generation.track(fn),
          host: input.host,
          generation: generation.number,
          logger: input.logger.child(record.name),
        }),
      );
    }
  } catch (cause) {
    fail(record, cause);
    await settleAll(input.logger, `plugin "${record.name}": dispose`, adapters.map((a) => async () => a.dispose?.()));
    await settleAll(input.logger, `plugin "${record.name}": release`, [() => instance.release()]);
    return null;
  }
  return { record, instance, adapters };
}

/**
 * Build a complete generation: discover, admit, load every plugin with the loader of its kind and build every
 * adapter. Individual plugin failures become error records; only a failure of discovery as a whole throws.
 */
export async function buildGeneration(input: BuildInput): Promise<Generation> {
  const discovered = input.discovered ?? discoverPlugins(input.pluginsDir);
  const overLimit = input.refuseOverLimit ? discovered.find(isOverLimit) : undefined;
  if (overLimit && !overLimit.ok) throw overLimit.error;
  const records = discovered.map(recordFrom);
  const seen = new Set<string>();
  records.forEach((record, i) => admit(record, discovered[i]!, input.config, seen));
  const generation = new Generation(input.number, records, input.logger);
  const loaded = await Promise.all(records.map((r) => (r.admitted && r.state === "active" ? loadOne(generation, r, input) : null)));
  const present = loaded.filter((entry): entry is Loaded => entry !== null);
  const claims = claimToolNames(
    present.map((entry) => ({ plugin: entry.record.name, adapters: entry.adapters })),
    input.config,
    RESERVED_TOOL_NAMES,
  );
  for (const entry of present) {
    const claim = claims.get(entry.record.name)!;
    entry.record.warnings.push(...claim.warnings);
    if (claim.conflict) {
      entry.record.state = "conflict";
      entry.record.error = claim.conflict;
      await settleAll(input.logger, `plugin "${entry.record.name}": dispose`, entry.adapters.map((a) => async () => a.dispose?.()));
      await settleAll(input.logger, `plugin "${entry.record.name}": release`, [() => entry.instance.release()]);
      continue;
    }
    generation.attach(entry.record.name, entry.instance, claim.adapters, entry.remote);
  }
  generation.seal();
  return generation;
}
