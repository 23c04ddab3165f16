import { basename } from "node:path";
import { ConfigSchema } from "../../../config/schema.ts";
import type { EventPublisher } from "../../../core/events.ts";
import type { Logger } from "../../../core/logger.ts";
import type { Workspace } from "../../../core/workspace.ts";
import type { MemoryBackend } from "../../../memory/types.ts";
import { openSqliteStorage } from "../../../storage/open.ts";
import type { Storage } from "../../../storage/types.ts";
import { defaultAdapterFactories } from "../../adapters/index.ts";
import type { DiscoveredPlugin } from "../../discovered.ts";
import { inspectPluginDir } from "../../discovery.ts";
import { buildGeneration } from "../../generation-build.ts";
import type { Generation, PluginRecord } from "../../generation.ts";
import { loaderResolver } from "../../loading.ts";
import { newRemoteHostState } from "../../remote/host-state.ts";
import { StatusStore } from "../../status.ts";

/**
 * One plugin directory loaded on its own, as the runtime would load it, into a generation of its own (never
 * published: no pumps, no cron schedule): the admission checks of discovery, then the loader and the adapters.
 * `prx plugins validate`, `install` and the test sandbox use it.
 */
export interface IsolatedPlugin {
  found: DiscoveredPlugin;
  generation: Generation;
  record: PluginRecord;
  status: StatusStore;
  release(): Promise<void>;
}

export interface IsolatedOptions {
  workspace: Workspace;
  /** The stores behind kv and the host (default: a throw-away in-memory database, closed with release). */
  storage?: Storage;
  events: EventPublisher;
  memory: () => MemoryBackend | null;
  logger: Logger;
  /** Permissions to grant; default: every permission the manifest declares (loadability, not policy). */
  grant?: string[];
  /** Over the manifest's [config], as `[plugins.<name>.config]` would set them. */
  config?: Record<string, string>;
}

export async function loadIsolated(dir: string, options: IsolatedOptions): Promise<IsolatedPlugin> {
  const found = inspectPluginDir(dir, basename(dir));
  const manifest = found.manifest;
  const grant = options.grant ?? (manifest ? [...manifest.permissions.required, ...manifest.permissions.optional] : []);
  const config = ConfigSchema.parse({ plugins: { [found.name]: { grant, config: options.config ?? {} } } });
  const storage = options.storage ?? openSqliteStorage(":memory:");
  const status = new StatusStore();
  const { generation } = await buildGeneration({
    number: 1,
    pluginsDir: dir,
    config,
    host: { workspace: options.workspace, storage, events: options.events, memory: options.memory, logger: options.logger, remote: newRemoteHostState() },
    loaders: loaderResolver(),
    factories: defaultAdapterFactories(),
    status,
    logger: options.logger,
    discovered: [found],
    // one plugin, checked once: wait for its load however long it takes (a cold transpile on a busy machine can
    // outlast PLUGIN_JOIN_WAIT_MS, and a plugin still "starting" is no verdict)
    joinAfterMs: Infinity,
  });
  return {
    found,
    generation,
    record: generation.plugins[0]!,
    status,
    async release() {
      await generation.release(0);
      if (!options.storage) await storage.close();
    },
  };
}
