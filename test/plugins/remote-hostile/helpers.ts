/** The hostile plugin started directly (no gateway), and log capture; importing this changes no global state. */
import { openSqliteStorage } from "../../../src/storage/index.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getLogLevel, getLogSink, setLogLevel, setLogSink } from "../../../src/core/logger.ts";
import {
  createRemoteHostBindings,
  startRemotePlugin,
  type RemotePluginHandle,
  type StartRemotePluginOptions,
} from "../../../src/plugins/remote/index.ts";
import { HOSTILE_NAME, writeHostilePlugin, type HostileOptions } from "./fixture.ts";

export type Transport = "worker" | "process";
export const TRANSPORTS: Transport[] = ["worker", "process"];

export interface Hostile {
  handle: RemotePluginHandle;
  /** Call an action as a tool; resolves with the tool result (success, output, error). */
  act(name: string, args?: Record<string, unknown>): Promise<{ success: boolean; output: string; error?: string }>;
  stop(): Promise<void>;
}

type Extra = Partial<Omit<StartRemotePluginOptions, "name" | "dir" | "entryPath" | "transport" | "host">>;

export async function startHostile(transport: Transport, extra: Extra = {}, options: Partial<HostileOptions> = {}) {
  const root = mkdtempSync(join(tmpdir(), "prx-hostile-"));
  const { dir, entry } = writeHostilePlugin(root, { transport, ...options });
  const storage = openSqliteStorage(":memory:");
  const host = createRemoteHostBindings({
    store: storage.remotePlugins,
    pluginKv: storage.pluginKv,
    memory: () => null,
    providers: {
      resolve: () => {
        throw new Error("the hostile plugin uses no model");
      },
      names: () => [],
    },
    events: { publish() {} },
    model: { provider: "none", model: "none" },
  });
  const cleanup = () => (void storage.close(), rmSync(root, { recursive: true, force: true }));
  let handle: RemotePluginHandle;
  try {
    handle = await startRemotePlugin({
      name: HOSTILE_NAME,
      dir,
      entryPath: entry,
      transport,
      settings: {},
      rpcTimeoutMs: 30_000,
      readyTimeoutMs: 20_000,
      host,
      ...extra,
    });
  } catch (error) {
    cleanup();
    throw error;
  }
  const context = { sessionId: "s1", workspace: root, signal: new AbortController().signal, sendMessage: () => {} };
  const hostile: Hostile = {
    handle,
    act: async (name, args = {}) => {
      const tool = handle.tools().find((t) => t.spec.name === name)!;
      return (await tool.execute(args, context)) as { success: boolean; output: string; error?: string };
    },
    stop: async () => {
      await handle.shutdown();
      cleanup();
    },
  };
  return hostile;
}

/** Run `body` with the process-wide logger at `level` writing into an array; the logger is restored afterwards. */
export async function withLogs<T>(level: "warn" | "error", body: (lines: string[]) => Promise<T>): Promise<T> {
  const lines: string[] = [];
  const [oldLevel, oldSink] = [getLogLevel(), getLogSink()];
  setLogLevel(level);
  setLogSink((line) => void lines.push(line));
  try {
    return await body(lines);
  } finally {
    setLogLevel(oldLevel);
    setLogSink(oldSink);
  }
}

