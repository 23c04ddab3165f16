import { nullPublisher } from "../../core/events.ts";
import { createLogger } from "../../core/logger.ts";
import type { Workspace } from "../../core/workspace.ts";
import { openSqliteStorage } from "../../storage/open.ts";
import { describePlugin, type PluginInfo } from "../api.ts";
import { isSensitivePermission } from "../permissions.ts";
import { describeFuel } from "../wasm/inspect.ts";
import { loadIsolated } from "./sandbox/isolated.ts";

/**
 * The admission checks of `prx plugins validate`, also run by `prx plugins test` and `install`: the manifest and
 * the admission limits, then a load with every declared permission granted (loadability, not policy) in a
 * throw-away database, with the tool specs it serves and notes on the grants it needs.
 */
export interface PluginCheck {
  ok: boolean;
  info: PluginInfo;
  tools: { name: string; description: string }[];
  notes: string[];
}

export async function checkPluginDir(dir: string, workspace: Workspace): Promise<PluginCheck> {
  const storage = openSqliteStorage(":memory:");
  const loaded = await loadIsolated(dir, {
    workspace,
    storage,
    events: nullPublisher,
    memory: () => null,
    logger: createLogger("plugins.validate"),
  });
  try {
    const manifest = loaded.found.manifest;
    const notes: string[] = [];
    if (manifest) {
      const sensitive = [...manifest.permissions.required, ...manifest.permissions.optional].filter(isSensitivePermission);
      if (sensitive.length) {
        notes.push(`needs grants in config.toml: [plugins.${manifest.plugin.name}] grant = [${sensitive.map((p) => `"${p}"`).join(", ")}]`);
      }
      if (manifest.plugin.runtime === "wasm") notes.push(`fuel: ${describeFuel(manifest.resources.max_fuel ?? null)}`);
    }
    const { record, generation, status } = loaded;
    return {
      ok: record.state === "active",
      info: describePlugin(record, generation, status),
      tools: generation.adapters.tool.map((t) => ({ name: t.spec.name, description: t.spec.description })),
      notes,
    };
  } finally {
    await loaded.release();
    await storage.close();
  }
}
