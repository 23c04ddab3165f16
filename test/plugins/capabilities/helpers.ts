import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Database } from "bun:sqlite";
import { openAgentHost, type AgentHost } from "../../../src/agent/index.ts";
import { setLogSink } from "../../../src/core/logger.ts";
import {
  createPluginExtensions,
  type PluginExtensionOptions,
} from "../../../src/agent/plugin-extensions.ts";
import type { PluginServices } from "../../../src/plugins/runtime/index.ts";
import type { PrxError } from "../../../src/core/errors.ts";
import { startFakeOpenAI, type FakeServer } from "../../fakes/openai-server.ts";
import { tempWorkspace } from "../../helpers/workspace.ts";

export const PLUGINS2_DIR = resolve(import.meta.dir, "../../fixtures/test-wasm2");
/** Transpiled components are content-addressed: every test workspace shares one cache so each is transpiled once. */
export const SHARED_CACHE = join(tmpdir(), "prx-capabilities-transpile-cache");

/** Quiet logs unless PRX_TEST_LOGS is set; returns the captured lines. */
export function captureLogs(): string[] {
  const lines: string[] = [];
  if (!process.env.PRX_TEST_LOGS) setLogSink((line) => lines.push(line));
  return lines;
}

export interface TestWorkspace {
  root: string;
  pluginsDir: string;
  cleanup(): void;
}

/** A temp workspace holding copies of the named test-wasm2 plugins and the given config.toml. */
export function workspaceWith(plugins: string[], config = ""): TestWorkspace {
  const ws = tempWorkspace(config, {
    prefix: "prx-capabilities-",
    sharedCache: SHARED_CACHE,
    plugins: plugins.map((name) => join(PLUGINS2_DIR, name)),
  });
  return { root: ws.dir, pluginsDir: ws.pluginsDir, cleanup: ws.cleanup };
}

/** Config lines that offer wasm_plugins_manage to the model (it is off by default). */
export const MANAGE_TOOL_OPT_IN = '[tools]\nenabled = ["wasm_plugins_manage"]\n';

export function fakeConfig(url: string, extra = ""): string {
  // the tools of these plugins are expected to run without asking for approval
  return `default_provider = "fake"\ndefault_model = "fake-model"\nautonomy = { level = "full" }\n[providers.fake]\nkind = "openai-compatible"\nbase_url = "${url}"\n${extra}`;
}

export interface OpenedHost {
  host: AgentHost;
  services: PluginServices;
}

/** An agent host with the plugin extensions, as the CLI opens it (cron off unless asked). */
export async function openHost(root: string, options: PluginExtensionOptions = { cron: false }): Promise<OpenedHost> {
  const host = await openAgentHost({ workspace: root, extend: createPluginExtensions(options), env: {} });
  return { host, services: host.plugins! };
}

/** A fake provider, a workspace with these test plugins, and a host on it; close() undoes all three. */
export interface HostScenario {
  fake: FakeServer;
  ws: TestWorkspace;
  opened: OpenedHost;
  logs: string[];
  close(): Promise<void>;
}

export async function openScenario(plugins: string[], extraConfig = ""): Promise<HostScenario> {
  const logs = captureLogs();
  const fake = startFakeOpenAI();
  const ws = workspaceWith(plugins, fakeConfig(fake.url, extraConfig));
  const opened = await openHost(ws.root);
  return {
    fake,
    ws,
    opened,
    logs,
    async close() {
      await opened.host.close();
      await fake.stop();
      ws.cleanup();
    },
  };
}

/** A plugin's KV value as text (plugin KV lives in the workspace database). */
export function kvText(db: Database, plugin: string, key: string): string | null {
  const row = db
    .query<{ value: Uint8Array }, [string, string]>("SELECT value FROM plugin_kv WHERE plugin = ? AND key = ?")
    .get(plugin, key);
  return row ? new TextDecoder().decode(row.value) : null;
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function failure(promise: Promise<unknown>): Promise<PrxError> {
  try {
    await promise;
  } catch (error) {
    return error as PrxError;
  }
  throw new Error("expected a failure");
}

/** A JSON response body, for assertions. */
export const body = async (response: Response): Promise<any> => response.json();

