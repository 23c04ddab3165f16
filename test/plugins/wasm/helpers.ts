import { afterAll, beforeAll } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "bun:sqlite";
import { PrxError } from "../../../src/core/errors.ts";
import { createLogger, setLogSink } from "../../../src/core/logger.ts";
import { openWorkspace } from "../../../src/core/workspace.ts";
import type { MemoryBackend } from "../../../src/memory/types.ts";
import type { AdmittedPlugin, PluginHostServices } from "../../../src/plugins/types.ts";
import { openSqliteStorage, type SqliteStorage } from "../../../src/storage/index.ts";
import { PLUGINS } from "../../fixtures/test-wasm/plugins.ts";

export const TEST_PLUGINS_DIR = join(import.meta.dir, "..", "..", "..", "test", "fixtures", "test-wasm");

/** A real host: temp workspace, its SQLite db, an event recorder, a log recorder. */
export interface TestHost {
  host: PluginHostServices;
  /** The host's storage, and its connection. */
  storage: SqliteStorage;
  db: Database;
  events: { topic: string; payload: unknown }[];
  logs: string[];
  root: string;
  close(): void;
}

export function makeHost(options: { root?: string; memory?: MemoryBackend | null } = {}): TestHost {
  const root = options.root ?? mkdtempSync(join(tmpdir(), "prx-wasm-"));
  const workspace = openWorkspace(root);
  const storage = openSqliteStorage(workspace.dbPath);
  const events: { topic: string; payload: unknown }[] = [];
  const logs: string[] = [];
  setLogSink((line) => logs.push(line));
  const host: PluginHostServices = {
    workspace,
    storage,
    events: { publish: (topic, payload) => events.push({ topic, payload }) },
    memory: () => options.memory ?? null,
    logger: createLogger("test"),
  };
  return {
    host,
    storage,
    db: storage.db,
    events,
    logs,
    root,
    close() {
      void storage.close();
    },
  };
}

/**
 * One real host for the whole test file: made before its first test, closed and its workspace removed after its
 * last. The object returned is filled in by that first hook, so read it inside tests and hooks only.
 */
export function hostPerFile(): TestHost {
  const t = {} as TestHost;
  beforeAll(() => void Object.assign(t, makeHost()));
  afterAll(() => {
    t.close();
    removeDir(t.root);
  });
  return t;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** The admitted form of a test plugin, as the runtime would hand it to the loader. */
export function admitted(
  dir: string,
  overrides: Omit<Partial<AdmittedPlugin>, "resources"> & { resources?: Partial<AdmittedPlugin["resources"]> } = {},
): AdmittedPlugin {
  const p = PLUGINS.find((x) => x.dir === dir);
  if (!p) throw new Error(`no test plugin ${dir}`);
  const r = {
    max_memory_mb: 32,
    max_execution_time_ms: 2000,
    max_http_requests_per_call: 4,
    max_kv_storage_mb: 1,
    ...p.resources,
  };
  const { resources, ...rest } = overrides;
  return {
    name: p.dir,
    version: "0.1.0",
    kind: p.kind === "module" ? "wasm-module" : "wasm-component",
    dir: join(TEST_PLUGINS_DIR, p.dir),
    entryPath: join(TEST_PLUGINS_DIR, p.dir, "plugin.wasm"),
    capabilities: p.capabilities.map((c) => ({
      type: c.type as AdmittedPlugin["capabilities"][number]["type"],
      name: c.name,
    })),
    resources: {
      maxMemoryMb: r.max_memory_mb,
      maxExecutionTimeMs: r.max_execution_time_ms,
      maxHttpRequestsPerCall: r.max_http_requests_per_call,
      maxKvStorageMb: r.max_kv_storage_mb,
      maxFuel: null,
      ...resources,
    },
    granted: new Set(["log", "config", "kv", ...(p.required ?? [])]),
    config: {},
    httpAllowlist: p.httpAllowlist ?? [],
    ...rest,
  };
}

/** The PrxError a promise rejects with (anything else, or success, fails the test). */
export async function failure(promise: Promise<unknown>): Promise<PrxError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PrxError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}
