import { errorMessage, PrxError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { createRemoteAdapters } from "./adapters/remote.ts";
import type { AdapterFactories, CapabilityAdapter, RemoteAdapter, RemoteAdapterFactory, RemoteAdapters } from "./adapters/types.ts";
import { fail } from "./admission.ts";
import { type Generation, type PluginRecord, type PluginSlot, settleAll, slotGeneration } from "./generation.ts";
import { isRemoteInstance } from "./remote/instance.ts";
import type { StatusStore } from "./status.ts";
import type { AdmittedPlugin, PluginHostServices, PluginInstance, PluginKind, PluginLoader } from "./types.ts";

/** Longest a loader may take to load one plugin (the WASM sandbox has its own, shorter init timeout). */
export const PLUGIN_LOAD_TIMEOUT_MS = 60_000;
/** Headroom over a remote plugin's own ready_timeout_ms, so its supervisor reports the timeout, not the generation. */
export const REMOTE_LOAD_MARGIN_MS = 5_000;

/** Loader lookup by kind; the runtime combines its own loaders and the lazily imported built-ins. */
export type LoaderResolver = (kind: PluginKind) => Promise<PluginLoader | undefined>;

/** What loading one plugin needs from the build. */
export interface LoadContext {
  host: PluginHostServices;
  loaders: LoaderResolver;
  factories: AdapterFactories;
  status: StatusStore;
  logger: Logger;
  /** Default loadTimeoutFor(plugin). */
  loadTimeoutMs?: number;
  /** Aborted when the runtime stops: loads still going on give up. */
  signal?: AbortSignal;
}

/** A plugin loaded for a generation, with its adapters; not attached yet. */
export interface Loaded {
  record: PluginRecord;
  instance: PluginInstance;
  adapters: CapabilityAdapter[];
  slot: PluginSlot;
  remote?: RemoteAdapter;
}

/** The default load limit; a remote plugin may declare a ready timeout longer than PLUGIN_LOAD_TIMEOUT_MS. */
export function loadTimeoutFor(plugin: AdmittedPlugin): number {
  return Math.max(PLUGIN_LOAD_TIMEOUT_MS, (plugin.remote?.ready_timeout_ms ?? 0) + REMOTE_LOAD_MARGIN_MS);
}

/** A loader that never settles must not hold the whole candidate: it fails the plugin; a late instance is released. */
function loadWithin(loader: PluginLoader, plugin: AdmittedPlugin, context: LoadContext): Promise<PluginInstance> {
  const limit = context.loadTimeoutMs ?? loadTimeoutFor(plugin);
  return new Promise((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(new PrxError("PLUGIN_TIMEOUT", `plugin "${plugin.name}" did not load within ${limit} ms`));
    }, limit);
    loader.load(plugin, context.host, context.signal).then(
      (instance) => {
        clearTimeout(timer);
        if (!late) return resolve(instance);
        void instance.release().catch((e) => context.logger.warn(`late instance of "${plugin.name}": release failed: ${errorMessage(e)}`));
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Release what a failed load built; the record says why it failed. */
export async function discard(loaded: Pick<Loaded, "record" | "instance" | "adapters">, logger: Logger): Promise<void> {
  const name = loaded.record.name;
  await settleAll(logger, `plugin "${name}": dispose`, loaded.adapters.map((a) => async () => a.dispose?.()));
  await settleAll(logger, `plugin "${name}": release`, [() => loaded.instance.release()]);
}

/**
 * Load one admitted plugin with the loader of its kind and build its adapters, whose calls count on `generation`
 * (through the plugin's slot). A failure is recorded on the record and null returned.
 */
export async function loadOne(generation: Generation, record: PluginRecord, context: LoadContext): Promise<Loaded | null> {
  const admitted = record.admitted!;
  const loader = await context.loaders(admitted.kind);
  if (!loader) {
    fail(record, new PrxError("PLUGIN_UNSUPPORTED", `no loader for plugin kind "${admitted.kind}" in this build`));
    return null;
  }
  let instance: PluginInstance;
  try {
    instance = await loadWithin(loader, admitted, context);
  } catch (cause) {
    fail(record, cause);
    return null;
  }
  const slot: PluginSlot = { generation };
  const track = <T>(fn: () => Promise<T>): Promise<T> => (slot.attached ? slotGeneration(slot).track(fn) : fn());
  const adapters: CapabilityAdapter[] = [];
  try {
    if (admitted.kind === "remote") {
      const built = await remoteAdaptersOf(record, instance, {
        factory: context.factories.remote,
        status: context.status,
        track,
        host: context.host,
        logger: context.logger,
      });
      return { record, instance, adapters: built.adapters, slot, remote: built.remote };
    }
    for (const capability of record.capabilities) {
      const factory = context.factories[capability.type] as ((c: unknown) => Promise<CapabilityAdapter>) | undefined;
      if (!factory) {
        record.warnings.push(`${capability.type} "${capability.name}": no ${capability.type} adapter in this build yet; not wired`);
        continue;
      }
      adapters.push(
        await factory({
          plugin: admitted,
          capability,
          instance,
          status: context.status.for(record.name, capability.type, capability.name),
          track,
          host: context.host,
          generation: generation.number,
          logger: context.logger.child(record.name),
        }),
      );
    }
  } catch (cause) {
    fail(record, cause);
    await discard({ record, instance, adapters }, context.logger);
    return null;
  }
  return { record, instance, adapters, slot };
}

/**
 * A generation's build step for a loaded remote plugin: its adapters come from what it announced, not from manifest
 * capabilities; the record's capabilities become the announced ones (so listings and counters show them).
 */
export async function remoteAdaptersOf(
  record: PluginRecord,
  instance: PluginInstance,
  input: {
    factory?: RemoteAdapterFactory;
    status: StatusStore;
    track<T>(fn: () => Promise<T>): Promise<T>;
    host: PluginHostServices;
    logger: Logger;
  },
): Promise<RemoteAdapters> {
  if (!isRemoteInstance(instance)) {
    throw new PrxError("PLUGIN_LOAD", `the loader of remote plugin "${record.name}" returned no remote handle`);
  }
  if (record.capabilities.length > 0) {
    record.warnings.push("[[capabilities]] are ignored for remote plugins: their surfaces come from what the plugin announces");
  }
  const built = await (input.factory ?? createRemoteAdapters)({
    plugin: record.admitted!,
    handle: instance.handle,
    status: (type, name) => input.status.for(record.name, type, name),
    track: input.track,
    host: input.host,
    logger: input.logger.child(record.name),
  });
  record.capabilities = built.capabilities;
  record.warnings.push(...built.warnings);
  return built;
}

/** The built-in loaders, imported on first use so commands without plugins stay light. */
async function builtinLoader(kind: PluginKind): Promise<PluginLoader | undefined> {
  if (kind === "wasm-component" || kind === "wasm-module") {
    const { wasmLoader } = await import("./wasm/index.ts");
    return wasmLoader;
  }
  if (kind === "remote") {
    const { remoteLoader } = await import("./remote/loader.ts");
    return remoteLoader;
  }
  return undefined;
}

/** Loader lookup: the given loaders first, then the built-ins. */
export function loaderResolver(own: readonly PluginLoader[] = []): LoaderResolver {
  const byKind = new Map<PluginKind, PluginLoader>();
  for (const loader of own) for (const kind of loader.kinds) byKind.set(kind, loader);
  return async (kind) => byKind.get(kind) ?? (await builtinLoader(kind));
}
