import type { HostExtensions, OpenAgentHostOptions } from "../agent/host.ts";
import type { Config } from "../config/schema.ts";
import { openDatabase } from "../core/database.ts";
import { createLogger } from "../core/logger.ts";
import type { Workspace } from "../core/workspace.ts";
import { listPlugins } from "./api.ts";
import { EventBus } from "./events/index.ts";
import { getPluginRuntime, type PluginRuntime, type RuntimeServices } from "./runtime.ts";

export interface PluginSummary {
  name: string;
  status: "active" | "error" | "disabled";
  message?: string;
}

/** Hosts sharing one workspace in a process share its runtime; it stops when the last host closes. */
const users = new Map<PluginRuntime, number>();
const buses = new WeakMap<PluginRuntime, EventBus>();

async function acquire(runtime: PluginRuntime): Promise<void> {
  users.set(runtime, (users.get(runtime) ?? 0) + 1);
  await runtime.start();
}

async function release(runtime: PluginRuntime): Promise<void> {
  const left = (users.get(runtime) ?? 1) - 1;
  if (left > 0) return void users.set(runtime, left);
  users.delete(runtime);
  await runtime.stop();
  buses.get(runtime)?.close();
}

/** Obtain the workspace's runtime (creating it and its event bus on first use) and count this user. */
async function openRuntime(workspace: Workspace, config: Config, services: Omit<RuntimeServices, "events" | "logger">): Promise<PluginRuntime> {
  const logger = createLogger("plugins");
  const bus = new EventBus({ logger: logger.child("events") });
  const runtime = getPluginRuntime(workspace, { ...services, events: bus, logger }, { config });
  // An existing runtime keeps the bus it was created with (the bus is stable for the runtime's life).
  if (runtime.host.events === bus) buses.set(runtime, bus);
  else bus.close();
  await acquire(runtime);
  return runtime;
}

/**
 * The workspace plugin runtime's contributions to an agent host: its event bus, the stable tool router
 * and (part 2) middleware, providers and storage. Everything resolves the current generation at call time.
 */
export const pluginExtensions: NonNullable<OpenAgentHostOptions["extend"]> = async ({ workspace, config, db, memory, providers }) => {
  const runtime = await openRuntime(workspace, config, { db, memory, providers });
  const extensions: HostExtensions = {
    events: runtime.host.events,
    toolSources: [runtime.tools],
    close: () => release(runtime),
  };
  return extensions;
};

/** Plugin statuses for `prx doctor`: builds a generation as a start would, then releases it. */
export async function describePlugins(workspace: Workspace, config: Config): Promise<PluginSummary[]> {
  const runtime = await openRuntime(workspace, config, { db: openDatabase(workspace.dbPath), memory: () => null });
  try {
    return listPlugins(runtime).plugins.map((p) => ({ name: p.name, status: p.status, message: p.message ?? undefined }));
  } finally {
    await release(runtime);
  }
}
