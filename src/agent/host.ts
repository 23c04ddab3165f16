import type { Database } from "bun:sqlite";
import { loadConfig } from "../config/loader.ts";
import type { Config } from "../config/schema.ts";
import { closeDatabase, openDatabase } from "../core/database.ts";
import { nullPublisher, type EventPublisher } from "../core/events.ts";
import { openWorkspace, type Workspace } from "../core/workspace.ts";
import { createMemoryBackend } from "../memory/index.ts";
import type { MemoryBackend } from "../memory/types.ts";
import { createProviderResolver, resolveModelChoice } from "../providers/index.ts";
import type { Provider, ProviderResolver } from "../providers/types.ts";
import { createBuiltinTools, ToolRegistry } from "../tools/index.ts";
import type { ToolSource } from "../tools/types.ts";
import { identityMiddleware, type MiddlewareRunner } from "./envelopes.ts";
import { SessionQueue } from "./session-queue.ts";
import { SqliteSessionStore } from "./sessions.ts";
import { executeTurn, type TurnExtensions } from "./turn.ts";
import type { TurnInput, TurnResult } from "./types.ts";

/**
 * What plugins contribute to a host. The plugin runtime implements it; every member resolves the current
 * generation at call time, so the host can hold it for its whole life.
 */
export interface HostExtensions extends TurnExtensions {
  events?: EventPublisher;
  middleware?: MiddlewareRunner;
  toolSources?: ToolSource[];
  /** "wasm:<name>" / "remote:<name>" providers; undefined when unknown. */
  provider?(name: string): Provider | undefined;
  /** "wasm:<name>" storage backends; undefined when unknown. */
  storage?(name: string): MemoryBackend | undefined;
  close?(): Promise<void>;
}

export interface AgentHost {
  workspace: Workspace;
  config: Config;
  configPath: string | null;
  db: Database;
  providers: ProviderResolver;
  memory: MemoryBackend;
  tools: ToolRegistry;
  sessions: SqliteSessionStore;
  events: EventPublisher;
  runTurn(input: TurnInput): Promise<TurnResult>;
  resolveModelChoice(opts: { provider?: string; model?: string }): { provider: string; model: string };
  /** Turns running or queued. */
  readonly activeTurns: number;
  close(): Promise<void>;
}

export interface OpenAgentHostOptions {
  workspace?: string;
  config?: Config;
  env?: Record<string, string | undefined>;
  /**
   * Called once the workspace, config and database exist, before providers and memory are resolved, so an
   * explicitly selected `wasm:` backend can be found. The plugin runtime hooks in here.
   */
  extend?: (base: { workspace: Workspace; config: Config; db: Database; memory: () => MemoryBackend | null; providers: ProviderResolver }) => Promise<HostExtensions>;
}

export async function openAgentHost(options: OpenAgentHostOptions = {}): Promise<AgentHost> {
  const env = options.env ?? process.env;
  const workspace = openWorkspace(options.workspace);
  const loaded = options.config ? { config: options.config, path: null } : loadConfig(workspace.configPath, env);
  const config = loaded.config;
  const db = openDatabase(workspace.dbPath);

  let extensions: HostExtensions = {};
  let memory: MemoryBackend | null = null;
  const providers = createProviderResolver(config, { env, external: (name) => extensions.provider?.(name) });
  if (options.extend) extensions = await options.extend({ workspace, config, db, memory: () => memory, providers });
  memory = createMemoryBackend(config.memory.backend, db, (name) => extensions.storage?.(name));
  const currentMemory = () => memory!;

  const tools = new ToolRegistry({
    builtins: createBuiltinTools({ config: config.tools, workspace: workspace.root, memory: currentMemory }),
    disabled: config.tools.disabled,
  });
  for (const source of extensions.toolSources ?? []) tools.addSource(source);

  const sessions = new SqliteSessionStore(db);
  const queue = new SessionQueue();
  const events = extensions.events ?? nullPublisher;
  const choose = (opts: { provider?: string; model?: string }) => resolveModelChoice(config, opts);
  // Fail at start, not at the first turn, when the configured provider cannot be resolved.
  providers.resolve(choose({}).provider);

  return {
    workspace,
    config,
    configPath: loaded.path,
    db,
    providers,
    memory: memory!,
    tools,
    sessions,
    events,
    resolveModelChoice: choose,
    get activeTurns() {
      return queue.active;
    },
    runTurn: (input) =>
      queue.run(input.historyOverride ? `${input.sessionId}#${crypto.randomUUID()}` : input.sessionId, () =>
        executeTurn(
          {
            config,
            workspace: workspace.root,
            sessions,
            providers,
            resolveModelChoice: choose,
            tools,
            memory: currentMemory,
            middleware: extensions.middleware ?? identityMiddleware,
            events,
            extensions,
          },
          input,
        ),
      ),
    async close() {
      await extensions.close?.();
      closeDatabase(workspace.dbPath);
    },
  };
}
