/** Workspaces and hosts for remote-plugin integration tests; importing it changes no global state. */
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { Database } from "bun:sqlite";
import { openAgentHost, type AgentHost } from "../../../src/agent/index.ts";
import type { PluginServices } from "../../../src/plugins/runtime/index.ts";
import { createPluginExtensions } from "../../../src/agent/plugin-extensions.ts";
import { tempWorkspace } from "../../helpers/workspace.ts";

export const EXAMPLE_DIR = resolve(import.meta.dir, "../../../plugins/example-remote");
export const ASSIST_DIR = join(import.meta.dir, "fixtures", "assist-remote");

export type Transport = "worker" | "process";
export const TRANSPORTS: Transport[] = ["worker", "process"];

export interface TestWorkspace {
  root: string;
  pluginsDir: string;
  cleanup(): void;
}

/** Rewrite keys of a copied plugin.toml: `transport`, or a `[remote.settings]` entry. */
export function editManifest(pluginDir: string, edit: { transport?: Transport; settings?: Record<string, string> }): void {
  const path = join(pluginDir, "plugin.toml");
  let text = readFileSync(path, "utf8");
  if (edit.transport) text = text.replace(/^transport = ".*"$/m, `transport = "${edit.transport}"`);
  for (const [key, value] of Object.entries(edit.settings ?? {})) {
    const line = new RegExp(`^${key} = ".*"$`, "m");
    text = line.test(text) ? text.replace(line, `${key} = "${value}"`) : `${text.trimEnd()}\n${key} = "${value}"\n`;
  }
  writeFileSync(path, text);
}

/** A temp workspace with copies of the given plugin directories (all on `transport`) and a config.toml. */
export function workspaceWith(plugins: string[], config: string, transport: Transport = "worker"): TestWorkspace {
  const ws = tempWorkspace(config, { prefix: "prx-remote-int-", plugins });
  for (const from of plugins) editManifest(join(ws.pluginsDir, basename(from)), { transport });
  return { root: ws.dir, pluginsDir: ws.pluginsDir, cleanup: ws.cleanup };
}

export function fakeConfig(url: string, extra = ""): string {
  // the tools of these plugins are expected to run without asking for approval
  return `default_provider = "fake"\ndefault_model = "fake-model"\nautonomy = { level = "full" }\n[reliability]\nretries = 0\n[providers.fake]\nkind = "openai-compatible"\nbase_url = "${url}"\n${extra}`;
}

/** An agent host as the CLI opens it: the workspace plugin runtime wired in (cron off). */
export async function openHost(root: string): Promise<{ host: AgentHost; services: PluginServices }> {
  const host = await openAgentHost({ workspace: root, extend: createPluginExtensions({ cron: false }), env: {} });
  return { host, services: host.plugins! };
}

/** A persisted remote-plugin setting (JSON-decoded), or undefined. */
export function setting(db: Database, plugin: string, key: string): unknown {
  const row = db
    .query<{ value: string }, [string, string]>("SELECT value FROM remote_plugin_settings WHERE plugin = ? AND key = ?")
    .get(plugin, key);
  return row ? (JSON.parse(row.value) as unknown) : undefined;
}


/** A gateway app (not listening) over an agent host of `plugins`, pairing required, with one token of its own. */
export async function gatewayOver(plugins: string[], fakeUrl: string) {
  const { buildGateway } = await import("../../../src/gateway/app.ts");
  const { AuthService } = await import("../../../src/gateway/auth/service.ts");
  const { pluginGatewayMounts } = await import("../../../src/gateway/routes/plugins.ts");
  const { sqliteStorageOf } = await import("../../helpers/host-db.ts");
  const ws = workspaceWith(plugins, fakeConfig(fakeUrl, "[gateway]\nrequire_pairing = true\n"));
  const { host } = await openHost(ws.root);
  const storage = sqliteStorageOf(host);
  const auth = new AuthService({ tokens: storage.tokens, pairingCodes: storage.gatewayPairing, required: true, pairingCodeTtlMs: 60_000, now: () => Date.now() });
  const token = auth.tokens.create("test").token;
  const { app } = buildGateway({ host, auth, version: "test", startedAt: Date.now(), mounts: pluginGatewayMounts(host), clientAddress: () => "127.0.0.1" });
  return { ws, host, app, token };
}
