import { createCronAdapter } from "./cron.ts";
import { createHookAdapter } from "./hook.ts";
import { createMiddlewareAdapter } from "./middleware.ts";
import { createProviderAdapter } from "./provider.ts";
import { createRemoteAdapters } from "./remote.ts";
import { createStorageAdapter } from "./storage.ts";
import { createToolAdapter } from "./tool.ts";
import type { AdapterFactories } from "./types.ts";

export type {
  AdapterContext,
  AdapterFactories,
  AdapterFactory,
  CapabilityAdapter,
  CapabilityAdapterMap,
  GenerationAdapters,
  RemoteAdapterFactory,
} from "./types.ts";
export type { CronAdapter, HookAdapter, MiddlewareAdapter, ProviderAdapter, RemoteAdapter, RemoteAdapterContext, RemoteAdapters, StorageAdapter, ToolAdapter } from "./types.ts";
export { createRemoteAdapters, REMOTE_PROVIDER_PREFIX } from "./remote.ts";
export { remoteProviders, remoteContext, runRemoteEvaluators, type CurrentRemotes } from "./remote-proxies.ts";
export { createToolAdapter, GuestToolResultSchema, GuestToolSpecSchema, TOOL_NAME_PATTERN } from "./tool.ts";
export { createToolRouter, type ToolAdapterLookup } from "./tool-router.ts";
export { ADAPTER_TIMEOUT_MARGIN_MS } from "./call.ts";
export { createMiddlewareAdapter } from "./middleware.ts";
export { busOf, createHookAdapter } from "./hook.ts";
export { createCronAdapter, cronJobId } from "./cron.ts";
export { createProviderAdapter, EXPORT_NAME_PATTERN, providersByName, GuestChatResponseSchema, WASM_PROVIDER_DEFAULT_TEMPERATURE, WASM_PROVIDER_PREFIX } from "./provider.ts";
export { createStorageAdapter, storagesByName, GuestMemoryEntrySchema, STORAGE_GET_RECALL_LIMIT } from "./storage.ts";
export { wasmProviders, StorageProxies, providerNames, storageNames, type CurrentAdapters } from "./proxies.ts";
export { StableProviders, type ProviderFamily } from "./stable-providers.ts";

/** One factory per capability type. A type without one loads (its plugin stays active) but gets no adapter and a warning. */
export function defaultAdapterFactories(): AdapterFactories {
  return {
    tool: createToolAdapter,
    middleware: createMiddlewareAdapter,
    hook: createHookAdapter,
    cron: createCronAdapter,
    provider: createProviderAdapter,
    storage: createStorageAdapter,
    remote: createRemoteAdapters,
  };
}
