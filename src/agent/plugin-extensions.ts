import type { HostExtensions, OpenAgentHostOptions } from "./host.ts";
import type { Config } from "../config/schema.ts";
import { PrxError } from "../core/errors.ts";
import { createLogger } from "../core/logger.ts";
import type { Workspace } from "../core/workspace.ts";
import { remoteContext, runRemoteEvaluators } from "../plugins/adapters/remote-proxies.ts";
import { listPlugins, type PluginStatusName } from "../plugins/api.ts";
import { lenientPublisher } from "../plugins/events/index.ts";
import { agentIdentity } from "../plugins/remote/agent.ts";
import { ElizaTurnEvents } from "../plugins/remote/eliza-turn-events.ts";
import { createManageToolSource, MANAGE_TOOL_NAME } from "../plugins/manage-tool.ts";
import {
  getPluginRuntime,
  type PluginRuntime,
  type PluginServices,
  type PluginServicesOptions,
  type RuntimeServices,
} from "../plugins/runtime/index.ts";
import type { ReplicaFabricOptions } from "../plugins/fabric/index.ts";
import { urlFromEnv } from "../storage/index.ts";
import { openSqliteStorage } from "../storage/open.ts";

export interface PluginSummary {
  name: string;
  status: PluginStatusName;
  message?: string;
}

/**
 * Obtain the workspace's runtime with its services (the first user creates it with its own event bus and the
 * services it asks for) and count this user.
 */
async function openRuntime(
  workspace: Workspace,
  config: Config | (() => Config | Promise<Config>),
  services: Omit<RuntimeServices, "events" | "logger">,
  options: PluginExtensionOptions,
): Promise<{ runtime: PluginRuntime; services: PluginServices }> {
  const { joinAfterMs, fabric, ...serviceOptions } = options;
  const runtime = getPluginRuntime(
    workspace,
    { ...services, logger: createLogger("plugins") },
    { config, joinAfterMs, fabric, services: serviceOptions },
  );
  if (!runtime.services) {
    throw new PrxError("INTERNAL", `the plugin runtime of ${workspace.root} was opened without services in this process`, {
      hint: "open the agent host before any command that uses the runtime alone",
    });
  }
  await runtime.acquire();
  return { runtime, services: runtime.services };
}

/**
 * Options of createPluginExtensions. `joinAfterMs`: how long the first build waits for plugins (default
 * PLUGIN_JOIN_WAIT_MS); a one-shot command passes Infinity, since it would exit before a late plugin joined.
 */
export type PluginExtensionOptions = PluginServicesOptions & { joinAfterMs?: number; fabric?: ReplicaFabricOptions };

/**
 * The workspace plugin runtime's contributions to an agent host: its event bus (lenient: a refused lifecycle
 * publish never fails a turn), the stable tool router plus wasm_plugins_manage when `[tools] enabled` opts in to it
 * (off by default: a prompt-injected message must not reload or probe plugins; the owner has `prx plugins probe`
 * and POST /api/plugins/:name/probe), the stable middleware runner, and
 * `wasm:` provider and storage proxies, and remote plugins' prompt context, evaluators and `remote:` providers.
 * Everything resolves the current generation at call time. `plugins` is the typed handle the gateway's plugin
 * routes use.
 */
export function createPluginExtensions(
  options: PluginExtensionOptions = {},
): NonNullable<OpenAgentHostOptions["extend"]> {
  // `readConfig` re-reads config.toml at every build, so a grant added to it takes effect on the next reload.
  return async ({ workspace, config, readConfig, memory, providers, sessions, storage, env }) => {
    // `[bus] backend = "redis"`: this runtime's events and reloads reach every replica of the deployment.
    const fabric =
      options.fabric ??
      (config.bus.backend === "redis"
        ? { url: urlFromEnv(config.bus.url_env, env, '[bus] backend = "redis"'), prefix: config.bus.prefix }
        : undefined);
    const { runtime, services } = await openRuntime(workspace, readConfig, { memory, providers, sessions, storage }, { ...options, fabric });
    const remoteLog = runtime.host.logger.child("remote");
    const bus = lenientPublisher(runtime.host.events, runtime.host.logger.child("events"));
    // elizaOS's run events (MESSAGE_RECEIVED ... RUN_ENDED) for remote plugins that listen to them
    const turnEvents = new ElizaTurnEvents(bus, () => agentIdentity(config.agent));
    const extensions: HostExtensions = {
      events: turnEvents.publisher(bus),
      middleware: services.middleware,
      // the management tool first: a source listed earlier wins a name (plugins cannot declare it anyway)
      toolSources: manageToolOffered(config) ? [createManageToolSource(services), runtime.tools] : [runtime.tools],
      provider: (name) => services.providers.resolve(name) ?? services.remoteProviders.resolve(name),
      providerNames: () => [...services.providers.names(), ...services.remoteProviders.names()],
      storage: (name) => services.storages.resolve(name),
      context: (input) => {
        turnEvents.received(input);
        return remoteContext(services.remotes, input, remoteLog);
      },
      afterTurn: (input, result) => {
        turnEvents.sent(input, result.text);
        return runRemoteEvaluators(services.remotes, input, result.text, remoteLog);
      },
      plugins: services,
      close: () => runtime.release(),
    };
    return extensions;
  };
}

/** The model gets wasm_plugins_manage only when `[tools] enabled` lists it (and `disabled` does not). */
export function manageToolOffered(config: Config): boolean {
  return config.tools.enabled.includes(MANAGE_TOOL_NAME) && !config.tools.disabled.includes(MANAGE_TOOL_NAME);
}

/** The default extensions every CLI host uses (cron scheduler and hooks.json on). */
export const pluginExtensions: NonNullable<OpenAgentHostOptions["extend"]> = createPluginExtensions();

/**
 * Run `fn` with the workspace's runtime outside an agent host (`prx plugins probe`): cron jobs are registered but the
 * scheduler does not fire, hooks.json is not fed. Releases the runtime afterwards (stopping it unless another user
 * of this process holds it).
 */
export async function withPluginServices<T>(
  workspace: Workspace,
  config: Config,
  fn: (services: PluginServices) => Promise<T>,
): Promise<T> {
  const storage = openSqliteStorage(workspace.dbPath);
  const { runtime, services } = await openRuntime(workspace, config, { storage, memory: () => null }, { cron: false, hooks: false, joinAfterMs: Infinity });
  try {
    return await fn(services);
  } finally {
    await runtime.release();
    await storage.close();
  }
}

/** Plugin statuses for `prx doctor`: builds a generation as a start would, then releases it. */
export async function describePlugins(workspace: Workspace, config: Config): Promise<PluginSummary[]> {
  const storage = openSqliteStorage(workspace.dbPath);
  const { runtime } = await openRuntime(workspace, config, { storage, memory: () => null }, { cron: false, hooks: false, joinAfterMs: Infinity });
  try {
    return listPlugins(runtime).plugins.map((p) => ({
      name: p.name,
      status: p.status,
      message: p.message ?? undefined,
    }));
  } finally {
    await runtime.release();
    await storage.close();
  }
}
