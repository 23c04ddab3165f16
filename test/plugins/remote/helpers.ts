import { setLogLevel } from "../../../src/core/logger.ts";
import { openSqliteStorage } from "../../../src/storage/index.ts";
import { join } from "node:path";
import type { EventPublisher } from "../../../src/core/events.ts";
import { SqliteMemory } from "../../../src/memory/sqlite.ts";
import type { ChatRequest, ChatResponse, Provider, ProviderResolver } from "../../../src/providers/types.ts";
import {
  createRemoteHostBindings,
  startRemotePlugin,
  type RemotePluginHandle,
} from "../../../src/plugins/remote/index.ts";

// expected failures are asserted through status and errors; keep the output readable
setLogLevel("silent");

export const FIXTURES = join(import.meta.dir, "fixtures");
export const PROBE = join(FIXTURES, "probe.ts");
export const EXAMPLE_DIR = join(import.meta.dir, "../../../plugins/example-remote");

export { memoryChannel } from "./memory-channel.ts";

/** A provider that answers with what it was asked: a stand-in for a configured LLM, not the unit under test. */
export class EchoProvider implements Provider {
  readonly name = "echo";
  requests: ChatRequest[] = [];
  async chat(request: ChatRequest): Promise<ChatResponse> {
    this.requests.push(request);
    const last = request.messages[request.messages.length - 1]?.content ?? "";
    return { text: `echo: ${last}`, toolCalls: [], model: request.model, provider: this.name };
  }
}

export function hostFixture() {
  const storage = openSqliteStorage(":memory:");
  const db = storage.db;
  const memory = new SqliteMemory(() => storage.memory);
  const events: Array<{ topic: string; payload: unknown }> = [];
  const publisher: EventPublisher = { publish: (topic, payload) => void events.push({ topic, payload }) };
  const provider = new EchoProvider();
  const providers: ProviderResolver = { resolve: () => provider, names: () => ["echo"] };
  const history = new Map<string, Array<{ role: string; content: string }>>();
  const bindings = createRemoteHostBindings({
    store: storage.remotePlugins,
    pluginKv: storage.pluginKv,
    memory: () => memory,
    providers,
    events: publisher,
    model: { provider: "echo", model: "echo-1" },
    history: (sessionId, limit) => (history.get(sessionId) ?? []).slice(-limit),
  });
  return { db, memory, events, provider, bindings, history, close: () => void storage.close() };
}

export type Transport = "worker" | "process";

export async function startProbe(
  host: ReturnType<typeof hostFixture>,
  transport: Transport,
  extra: {
    settings?: Record<string, string>;
    rpcTimeoutMs?: number;
    readyTimeoutMs?: number;
    shutdownGraceMs?: number;
    entry?: string;
    name?: string;
  } = {},
): Promise<RemotePluginHandle> {
  return startRemotePlugin({
    name: extra.name ?? "probe",
    dir: FIXTURES,
    entryPath: extra.entry ?? PROBE,
    transport,
    settings: extra.settings ?? {},
    rpcTimeoutMs: extra.rpcTimeoutMs ?? 5000,
    readyTimeoutMs: extra.readyTimeoutMs ?? 10_000,
    ...(extra.shutdownGraceMs !== undefined ? { shutdownGraceMs: extra.shutdownGraceMs } : {}),
    host: host.bindings,
  });
}

export function toolContext(sent: string[] = [], sessionId = "s1") {
  return {
    sessionId,
    workspace: "/tmp",
    signal: new AbortController().signal,
    sendMessage: (t: string) => void sent.push(t),
  };
}
