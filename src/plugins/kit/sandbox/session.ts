import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { openSqliteStorage } from "../../../storage/open.ts";
import { PrxError } from "../../../core/errors.ts";
import { createLogger, setLogLevel, setLogSink } from "../../../core/logger.ts";
import type { Workspace } from "../../../core/workspace.ts";
import { createMemoryBackend } from "../../../memory/index.ts";
import { KvStore } from "../../wasm/host/kv.ts";
import { buildPlugin, readKitManifest } from "../build/build.ts";
import { SOURCE_ENTRY } from "../layout.ts";
import { loadIsolated, type IsolatedPlugin } from "./isolated.ts";
import { handleRequest } from "./operations.ts";
import type { LoadedPluginInfo, SandboxRequest } from "./protocol.ts";
import type { SessionState } from "./types.ts";
import { throwawayWorkspace } from "./workspace.ts";

/** Events and log lines a sandbox keeps for `events()` and `logs()`; older ones are dropped past these. */
export const SANDBOX_MAX_EVENTS = 10_000;
export const SANDBOX_MAX_LOG_LINES = 10_000;

type LoadRequest = Extract<SandboxRequest, { op: "load" }>;

/** Appends to a list kept at most `max` long (the oldest entries go first). */
export function pushBounded<T>(list: T[], item: T, max: number): void {
  list.push(item);
  if (list.length > max) list.splice(0, list.length - max);
}

/**
 * The plugin under test: loaded by the runtime's own loader into a throw-away workspace (its SQLite database
 * behind kv and memory, a recorder behind the event bus), after a build of its sources when it is a kit plugin.
 */
export class SandboxSession implements SessionState {
  private constructor(
    readonly name: string,
    readonly workspace: Workspace,
    readonly loaded: IsolatedPlugin,
    readonly kv: KvStore,
    /** What the plugin published (the recorder behind the host's event bus) and logged. */
    readonly events: { topic: string; payload: unknown }[],
    readonly logs: string[],
    private readonly cleanup: () => void,
  ) {}

  static async open(request: LoadRequest): Promise<SandboxSession> {
    const dir = resolve(request.dir);
    const manifest = readKitManifest(dir);
    if (manifest.plugin.runtime === "wasm" && existsSync(join(dir, SOURCE_ENTRY))) await buildPlugin(dir);
    const { workspace, remove } = throwawayWorkspace();
    const storage = openSqliteStorage(workspace.dbPath);
    const memory = createMemoryBackend("sqlite", storage);
    const events: { topic: string; payload: unknown }[] = [];
    const logs: string[] = [];
    // a WASM plugin logs as [...plugin.<name>], a remote one as [remote.<name>]
    const scopes = [`plugin.${manifest.plugin.name}]`, `[remote.${manifest.plugin.name}]`];
    setLogLevel("trace");
    setLogSink((line) => {
      if (scopes.some((scope) => line.includes(scope))) pushBounded(logs, line, SANDBOX_MAX_LOG_LINES);
      else if (/^\S+ (WARN|ERROR)/.test(line)) process.stderr.write(line + "\n");
    });
    const close = () => {
      void storage.close();
      remove();
    };
    let loaded: IsolatedPlugin;
    try {
      loaded = await loadIsolated(dir, {
        workspace,
        storage,
        events: { publish: (topic, payload) => pushBounded(events, { topic, payload }, SANDBOX_MAX_EVENTS) },
        memory: () => memory,
        logger: createLogger("plugins.test"),
        config: request.config,
        ...(request.grant ? { grant: request.grant } : {}),
      });
    } catch (error) {
      close();
      throw error;
    }
    if (loaded.record.state !== "active") {
      await loaded.release();
      close();
      throw (
        loaded.record.error ??
        new PrxError("PLUGIN_LOAD", `plugin ${loaded.record.name} is ${loaded.record.state}`, { hint: "see `prx plugins validate`" })
      );
    }
    const name = loaded.record.name;
    const kv = new KvStore(workspace.dbPath, name, loaded.record.admitted?.resources.maxKvStorageMb ?? 10);
    return new SandboxSession(name, workspace, loaded, kv, events, logs, close);
  }

  info(): LoadedPluginInfo {
    const { record, generation } = this.loaded;
    return {
      name: record.name,
      dir: record.dir,
      capabilities: record.capabilities.map((c) => ({ type: c.type, name: c.name })),
      tools: generation.adapters.tool
        .filter((t) => t.plugin === record.name)
        .map((t) => ({ name: t.spec.name, description: t.spec.description, parameters: t.spec.parameters })),
    };
  }

  handle(request: Exclude<SandboxRequest, LoadRequest>): Promise<unknown> {
    return handleRequest(this, request);
  }

  async close(): Promise<void> {
    this.kv.close();
    await this.loaded.release();
    this.cleanup();
  }
}
