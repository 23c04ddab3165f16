/** Remote-mode JS plugins (elizaOS-style), run in a Bun Worker or a subprocess. See PROTOCOL.md. */
import { PrxError } from "../../core/errors.ts";
import type { AdmittedPlugin } from "../types.ts";
import type { AgentIdentity } from "./agent.ts";
import { createHandle } from "./handle.ts";
import { createLogger } from "../../core/logger.ts";
import { REMOTE_DEFAULT_IDLE_STOP_MS } from "./limits.ts";
import { descriptorCache, descriptorKey, keepsRunning } from "./on-demand/index.ts";
import { RemoteSupervisor } from "./supervisor/index.ts";
import type { RemoteHostBindings, RemotePluginHandle, StartRemotePluginOptions } from "./types.ts";

export type {
  HistoryMessage,
  RemoteCallOptions,
  RemoteEvaluatorInput,
  RemoteEventSubscription,
  RemoteHostBindings,
  RemoteMessageInput,
  RemotePluginHandle,
  RemoteState,
  RemoteStatus,
  StartRemotePluginOptions,
} from "./types.ts";
export { RemoteSectionSchema, RemoteTransports, type RemoteSection, type RemoteTransport } from "./manifest.ts";
export * from "./limits.ts";
export {
  createRemoteHostBindings,
  REMOTE_MEMORY_MAX_BYTES,
  type RemoteHostBindingsOptions,
  type ModelChoice,
} from "./host/bindings/index.ts";
export { createRemoteProvider } from "./provider.ts";
export { agentIdentity, stringToUuid, type AgentIdentity } from "./agent.ts";
export { defaultAgentIdentity } from "./agent-default.ts";
export { eventTopic, ELIZA_EVENT_TOPICS } from "./events.ts";
export { REMOTE_CHILD_ARG, REMOTE_WORKER_ENTRYPOINTS, isCompiledBinary } from "./transport/index.ts";
export type { PluginDescriptor } from "./protocol/index.ts";

/**
 * Start a remote plugin and resolve once it announced its surfaces and finished init. Rejects with a PrxError
 * (PLUGIN_LOAD, PLUGIN_TIMEOUT) when it cannot; nothing is left running then.
 */
export async function startRemotePlugin(options: StartRemotePluginOptions, signal?: AbortSignal): Promise<RemotePluginHandle> {
  const supervisor = new RemoteSupervisor(options);
  // a host stopping while the plugin still starts stops it: its Worker or child does not outlive the host
  const stop = () => void supervisor.shutdown();
  signal?.addEventListener("abort", stop, { once: true });
  try {
    await supervisor.start();
  } finally {
    signal?.removeEventListener("abort", stop);
  }
  if (signal?.aborted) {
    await supervisor.shutdown();
    throw new PrxError("ABORTED", `remote plugin ${options.name} started after its host stopped; it was shut down`);
  }
  return createHandle(supervisor);
}

/**
 * A remote plugin as a host loads it (PROTOCOL.md, "On demand"): when `cacheDir` holds the descriptor it announced
 * from the same code, settings and agent, and nothing in it must run unprompted, it is not started: its surfaces come
 * from the cache and its first call starts it. Otherwise it starts now (as startRemotePlugin), and what it announces
 * is cached for the next load. Every later start updates the cache when the announcement changed.
 */
export async function openRemotePlugin(
  options: StartRemotePluginOptions,
  cacheDir: string | null,
  signal?: AbortSignal,
): Promise<RemotePluginHandle> {
  const key = cacheDir === null ? null : descriptorKey(options, options.agent);
  if (cacheDir === null || key === null) return startRemotePlugin(options, signal);
  const log = createLogger(`remote.${options.name}`);
  const cache = descriptorCache(cacheDir, log);
  const cached = cache.read(options.name, key);
  let known = cached ? JSON.stringify(cached) : null;
  const startsIdle = cached !== null && keepsRunning(cached, options.idleStopMs ?? 0) === null;
  const withCache: StartRemotePluginOptions = {
    ...options,
    onAnnounced(descriptor) {
      options.onAnnounced?.(descriptor);
      const text = JSON.stringify(descriptor);
      if (text === known) return;
      if (known !== null && startsIdle) {
        log.warn("the plugin announced other surfaces than its cached descriptor; reload it to offer the new ones");
      }
      known = text;
      cache.write(options.name, key, descriptor);
    },
  };
  if (!startsIdle) return startRemotePlugin(withCache, signal);
  const supervisor = new RemoteSupervisor(withCache);
  supervisor.startIdle(cached);
  return createHandle(supervisor);
}

/**
 * Options for an admitted plugin of kind "remote": `[remote]` of its manifest, with `[config]` and config.toml's
 * `[plugins.<name>].config`, then `[plugins.<name>.settings]` and `.secrets`, overriding `[remote.settings]` of the
 * same name.
 */
export function remoteOptionsFor(
  plugin: AdmittedPlugin,
  host: RemoteHostBindings,
  agent?: AgentIdentity,
): StartRemotePluginOptions {
  const remote = plugin.remote;
  if (plugin.kind !== "remote" || !remote) {
    throw new PrxError("PLUGIN_LOAD", `plugin ${plugin.name} is not a remote plugin (kind ${plugin.kind})`);
  }
  return {
    name: plugin.name,
    dir: plugin.dir,
    entryPath: plugin.entryPath,
    transport: remote.transport,
    settings: { ...remote.settings, ...plugin.config, ...plugin.settings },
    rpcTimeoutMs: remote.rpc_timeout_ms,
    readyTimeoutMs: remote.ready_timeout_ms,
    host,
    cacheQuotaBytes: Math.floor(plugin.resources.maxKvStorageMb * 1024 * 1024),
    maxMemoryMb: plugin.resources.maxMemoryMb,
    idleStopMs: remote.idle_stop_ms ?? REMOTE_DEFAULT_IDLE_STOP_MS,
    ...(plugin.resources.hostCalls ? { hostCalls: plugin.resources.hostCalls } : {}),
    ...(agent ? { agent } : {}),
  };
}
