import type { HostExtensions, OpenAgentHostOptions } from "../agent/host.ts";
import type { Config } from "../config/schema.ts";
import { openDatabase } from "../core/database.ts";
import { createLogger } from "../core/logger.ts";
import type { Workspace } from "../core/workspace.ts";
import {
  attachPluginServices,
  pluginServicesOf,
  type PluginServices,
  type PluginServicesOptions,
} from "./adapters/services.ts";
import { remoteContext, runRemoteEvaluators } from "./adapters/remote-proxies.ts";
import { listPlugins, type PluginStatusName } from "./api.ts";
import { EventBus, lenientPublisher } from "./events/index.ts";
import { createManageToolSource, MANAGE_TOOL_NAME } from "./manage-tool.ts";
import { findPluginRuntime, getPluginRuntime, type PluginRuntime, type RuntimeServices } from "./runtime.ts";

export interface PluginSummary {
  name: string;
  status: PluginStatusName;
  message?: string;
}

/** Hosts sharing one workspace in a process share its runtime; it stops when the last host closes. */
const users = new Map<PluginRuntime, number>();
const buses = new WeakMap<PluginRuntime, EventBus>();

async function acquire(runtime: PluginRuntime): Promise<void> {
  users.set(runtime, (users.get(runtime) ?? 0) + 1);
  try {
    await runtime.start();
  } catch (error) {
    await release(runtime);
    throw error;
  }
}

async function release(runtime: PluginRuntime): Promise<void> {
  const left = (users.get(runtime) ?? 1) - 1;
  if (left > 0) return void users.set(runtime, left);
  users.delete(runtime);
  await pluginServicesOf(runtime)?.close();
  await runtime.stop();
  buses.get(runtime)?.close();
}

/** Obtain the workspace's runtime (creating it and its event bus on first use) and count this user. */
async function openRuntime(
  workspace: Workspace,
  config: Config | (() => Config),
  services: Omit<RuntimeServices, "events" | "logger">,
  attach?: PluginServicesOptions,
): Promise<PluginRuntime> {
  const logger = createLogger("plugins");
  const bus = new EventBus({ logger: logger.child("events") });
  const runtime = getPluginRuntime(workspace, { ...services, events: bus, logger }, { config });
  // An existing runtime keeps the bus it was created with (the bus is stable for the runtime's life).
  if (runtime.host.events === bus) buses.set(runtime, bus);
  else bus.close();
  // Attached before start so generation 1 activates its hooks and cron jobs like every later one.
  if (attach) attachPluginServices(runtime, attach);
  await acquire(runtime);
  return runtime;
}

/** Options of createPluginExtensions. */
export type PluginExtensionOptions = PluginServicesOptions;

/**
 * The workspace plugin runtime's contributions to an agent host: its event bus (lenient: a refused lifecycle
 * publish never fails a turn), the stable tool router plus wasm_plugins_manage when `[tools] enabled` opts in to it
 * (off by default: a prompt-injected message must not reload or probe plugins; the owner has `prx plugins probe`
 * and POST /api/plugins/:name/probe), the stable middleware runner, and
 * `wasm:` provider and storage proxies, and remote plugins' prompt context, evaluators and `remote:` providers.
 * Everything resolves the current generation at call time.
 */
export function createPluginExtensions(
  options: PluginExtensionOptions = {},
): NonNullable<OpenAgentHostOptions["extend"]> {
  // `readConfig` re-reads config.toml at every build, so a grant added to it takes effect on the next reload.
  return async ({ workspace, config, readConfig, db, memory, providers }) => {
    const runtime = await openRuntime(workspace, readConfig, { db, memory, providers }, options);
    const services = pluginServicesOf(runtime) ?? attachPluginServices(runtime, options);
    const remoteLog = runtime.host.logger.child("remote");
    const extensions: HostExtensions = {
      events: lenientPublisher(runtime.host.events, runtime.host.logger.child("events")),
      middleware: services.middleware,
      // the management tool first: a source listed earlier wins a name (plugins cannot declare it anyway)
      toolSources: manageToolOffered(config) ? [createManageToolSource(services), runtime.tools] : [runtime.tools],
      provider: (name) => services.providers.resolve(name) ?? services.remoteProviders.resolve(name),
      storage: (name) => services.storages.resolve(name),
      context: (input) => remoteContext(services.remotes, input, remoteLog),
      afterTurn: (input, result) => runRemoteEvaluators(services.remotes, input, result.text, remoteLog),
      close: () => release(runtime),
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

/** The last services found per workspace root as given: per-request lookups skip findPluginRuntime's realpath. */
const found = new Map<string, WeakRef<PluginServices>>();

/**
 * The services of a workspace whose runtime a host of this process opened (for the gateway's plugin routes and
 * /health, on every request). A remembered answer stands while those services are still attached to their runtime;
 * once they are closed the runtime is looked up again.
 */
export function pluginServicesFor(workspaceRoot: string): PluginServices | undefined {
  const cached = found.get(workspaceRoot)?.deref();
  if (cached && pluginServicesOf(cached.runtime) === cached) return cached;
  const runtime = findPluginRuntime(workspaceRoot);
  const services = runtime ? pluginServicesOf(runtime) : undefined;
  if (services) found.set(workspaceRoot, new WeakRef(services));
  else found.delete(workspaceRoot);
  return services;
}

/**
 * Run `fn` with the workspace's runtime and services outside an agent host (`prx plugins probe`): cron jobs are
 * registered but the scheduler does not fire, hooks.json is not fed. Stops the runtime afterwards unless another
 * user of this process holds it.
 */
export async function withPluginServices<T>(
  workspace: Workspace,
  config: Config,
  fn: (services: PluginServices) => Promise<T>,
): Promise<T> {
  const runtime = await openRuntime(
    workspace,
    config,
    { db: openDatabase(workspace.dbPath), memory: () => null },
    { cron: false, hooks: false },
  );
  try {
    return await fn(pluginServicesOf(runtime)!);
  } finally {
    await release(runtime);
  }
}

/** Plugin statuses for `prx doctor`: builds a generation as a start would, then releases it. */
export async function describePlugins(workspace: Workspace, config: Config): Promise<PluginSummary[]> {
  const runtime = await openRuntime(workspace, config, { db: openDatabase(workspace.dbPath), memory: () => null });
  try {
    return listPlugins(runtime).plugins.map((p) => ({
      name: p.name,
      status: p.status,
      message: p.message ?? undefined,
    }));
  } finally {
    await release(runtime);
  }
}
