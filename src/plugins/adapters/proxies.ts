import { PrxError } from "../../core/errors.ts";
import type { MemoryBackend } from "../../memory/types.ts";
import { WASM_PROVIDER_PREFIX } from "./provider.ts";
import { StableProviders } from "./stable-providers.ts";
import type { ProviderAdapter, StorageAdapter } from "./types.ts";

/** What the proxies need from the runtime: the generation current at call time (null when not started). */
/** The current generation's exported providers and storage backends, or null before the first one. */
export type CurrentAdapters = () => {
  providers: ReadonlyMap<string, ProviderAdapter>;
  storages: ReadonlyMap<string, StorageAdapter>;
} | null;

export function providerNames(current: CurrentAdapters): string[] {
  const generation = current();
  return generation ? [...generation.providers.keys()].sort().map((n) => WASM_PROVIDER_PREFIX + n) : [];
}

export function storageNames(current: CurrentAdapters): string[] {
  const generation = current();
  return generation ? [...generation.storages.keys()].sort().map((n) => WASM_PROVIDER_PREFIX + n) : [];
}

function unknownProvider(name: string, current: CurrentAdapters, now = false): PrxError {
  const available = providerNames(current);
  return new PrxError(
    "PROVIDER_UNKNOWN",
    `${now ? "provider" : "no loaded plugin provides"} "${name}"${now ? " is no longer provided by any loaded plugin" : ""}`,
    {
      status: 400,
      hint: `available plugin providers: ${available.join(", ") || "(none)"}; check \`prx plugins list\` (installed, enabled, granted)`,
      details: { name, available },
    },
  );
}

function unknownStorage(name: string, current: CurrentAdapters): PrxError {
  const available = ["sqlite", "none", ...storageNames(current)];
  return new PrxError(
    "MEMORY",
    `memory backend "${WASM_PROVIDER_PREFIX}${name}" is not provided by any loaded plugin`,
    {
      hint: `available: ${available.join(", ")}; a wasm backend needs an enabled plugin exporting storage "${name}" (prx plugins list)`,
      details: { available },
    },
  );
}

/** Stable `wasm:<name>` providers (see StableProviders). */
export function wasmProviders(current: CurrentAdapters): StableProviders {
  return new StableProviders({
    prefix: WASM_PROVIDER_PREFIX,
    find: (name) => {
      const generation = current();
      return generation ? generation.providers.get(name) : undefined;
    },
    names: () => providerNames(current),
    unknown: (full, gone) => unknownProvider(full, current, gone),
  });
}

/** Stable `wasm:<name>` memory backends, resolved per call like ProviderProxies. `name` comes without the prefix. */
export class StorageProxies {
  private readonly proxies = new Map<string, MemoryBackend>();

  constructor(private readonly current: CurrentAdapters) {}

  resolve(name: string): MemoryBackend | undefined {
    const bare = name.startsWith(WASM_PROVIDER_PREFIX) ? name.slice(WASM_PROVIDER_PREFIX.length) : name;
    if (!this.adapter(bare)) throw unknownStorage(bare, this.current);
    let proxy = this.proxies.get(bare);
    if (!proxy) {
      // Synchronous lookup: the generation's in-flight count is taken in the same tick (no release in between).
      const backend = (): MemoryBackend => {
        const found = this.adapter(bare);
        if (!found) throw unknownStorage(bare, this.current);
        return found.backend;
      };
      proxy = {
        name: `${WASM_PROVIDER_PREFIX}${bare}`,
        store: async (key, content, category, sessionId, options) =>
          backend().store(key, content, category, sessionId, options),
        recall: async (query, limit, sessionId, options) => backend().recall(query, limit, sessionId, options),
        get: async (key) => backend().get(key),
        forget: async (key) => backend().forget(key),
        count: async () => backend().count(),
        health: async () => (this.adapter(bare) ? backend().health() : false),
      };
      this.proxies.set(bare, proxy);
    }
    return proxy;
  }

  names(): string[] {
    return storageNames(this.current);
  }

  private adapter(name: string): StorageAdapter | undefined {
    const generation = this.current();
    return generation ? generation.storages.get(name) : undefined;
  }
}
