import { closeSync, fchmodSync, openSync, writeSync } from "node:fs";
import { loadConfig } from "../config/loader.ts";
import { openWorkspace, type Workspace } from "../core/workspace.ts";
import { openPgMemoryFor, sqliteRecallMode } from "../agent/memory-embed.ts";
import type { Config } from "../config/schema.ts";
import { PrxError } from "../core/errors.ts";
import { createMemoryBackend, type MemoryBackend } from "../memory/index.ts";
import { createProviderResolver } from "../providers/index.ts";
import { openStorage, type SessionStore } from "../storage/index.ts";
import type { SessionLinkStore } from "../storage/types.ts";

export interface OpenedMemory {
  workspace: Workspace;
  memory: MemoryBackend;
  /** The workspace's sessions, on the `[storage]` backend. */
  sessions: SessionStore;
  /** Which session a delegated helper's session came from. */
  sessionLinks: SessionLinkStore;
  /** On SQLite: why recall is full-text search or hybrid (prx memory reindex says it when there is nothing to do). */
  recallDetail?: string;
  close(): Promise<void>;
}

/**
 * The workspace's configured memory backend for the memory and session commands: the database alone for
 * "sqlite" and "none" (no providers, no plugins), the whole agent host (with its plugin runtime) for "wasm:<name>".
 */
export async function openMemory(workspaceFlag: string | undefined, options: { embeddingModel?: string } = {}): Promise<OpenedMemory> {
  const workspace = openWorkspace(workspaceFlag);
  const config = withEmbeddingModel(loadConfig(workspace.configPath).config, options.embeddingModel);
  if (config.memory.backend.startsWith("wasm:")) {
    const { openHost } = await import("./open-host.ts");
    const host = await openHost(workspace.root);
    return { workspace, memory: host.memory, sessions: host.sessions, sessionLinks: host.storage.sessionLinks, close: () => host.close() };
  }
  const storage = await openStorage(config.storage, workspace.dbPath, process.env);
  try {
    const providers = () => createProviderResolver(config, { configPath: workspace.configPath });
    const mode = config.memory.backend === "sqlite" ? await sqliteRecallMode(storage, workspace.cacheDir, config, providers()) : null;
    const memory = createMemoryBackend(
      config.memory.backend,
      storage,
      undefined,
      config.memory.backend === "postgres" && storage.sql ? await openPgMemoryFor({ sql: storage.sql, memoryPresence: storage.memoryPresence }, config, providers()) : null,
      mode?.hybrid,
    );
    return { workspace, memory, sessions: storage.sessions, sessionLinks: storage.sessionLinks, close: () => storage.close(), ...(mode ? { recallDetail: mode.detail } : {}) };
  } catch (error) {
    await storage.close();
    throw error;
  }
}

/** `config` with the default provider's embedding_model replaced (`prx memory reindex --model M`). */
function withEmbeddingModel(config: Config, model: string | undefined): Config {
  if (model === undefined) return config;
  const provider = config.providers[config.default_provider];
  if (!provider) {
    throw new PrxError("CONFIG_INVALID", `--model needs the default provider "${config.default_provider}" in [providers]`, {
      hint: "set default_provider to an OpenAI-compatible provider of config.toml",
    });
  }
  return { ...config, providers: { ...config.providers, [config.default_provider]: { ...provider, embedding_model: model } } };
}

export interface Output {
  write(text: string): void;
  close(): void;
}

/**
 * Where an export goes: stdout, or a new file only the user can read (exports hold private memories and whole
 * conversations). Written a chunk at a time, so an export never sits whole in memory.
 */
export function exportOutput(path: string | undefined): Output {
  if (path === undefined) return { write: (text) => void process.stdout.write(text), close: () => undefined };
  const fd = openSync(path, "w", 0o600);
  fchmodSync(fd, 0o600);
  return { write: (text) => void writeSync(fd, text), close: () => closeSync(fd) };
}
