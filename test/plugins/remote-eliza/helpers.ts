import type { Database } from "bun:sqlite";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { workspaceWith, type TestWorkspace, type Transport } from "../remote-integration/workspace.ts";

export { fakeConfig, openHost, TRANSPORTS, type TestWorkspace, type Transport } from "../remote-integration/workspace.ts";

/** An elizaOS plugin laid out as npm installs it: the package and its dependencies in the plugin's node_modules. */
export const NOTES_DIR = join(import.meta.dir, "fixtures", "eliza-notes");
export const NOTES = "eliza-notes";

/** A temp workspace holding a copy of the eliza-notes plugin (node_modules included) on `transport`, entry `entry`. */
export function notesWorkspace(config: string, transport: Transport, entry: "worker.js" | "worker.ts" = "worker.js"): TestWorkspace {
  const ws = workspaceWith([NOTES_DIR], config, transport);
  const manifest = join(ws.pluginsDir, NOTES, "plugin.toml");
  writeFileSync(manifest, readFileSync(manifest, "utf8").replace('entry = "worker.js"', `entry = "${entry}"`));
  return ws;
}

/** A JSON value a remote plugin stored with runtime.setCache (plugin_kv), or undefined. */
export function cached(db: Database, plugin: string, key: string): unknown {
  const row = db
    .query<{ value: Uint8Array }, [string, string]>("SELECT value FROM plugin_kv WHERE plugin = ? AND key = ?")
    .get(plugin, key);
  return row ? (JSON.parse(new TextDecoder().decode(row.value)) as unknown) : undefined;
}

/** [agent] keys the tests set, so runtime.character shows values from config.toml rather than defaults. */
export const AGENT_CONFIG = `[agent]
name = "Ada"
bio = ["Keeps notes.", "Answers briefly."]
system_prompt = "You are Ada."
max_history_messages = 12
`;
