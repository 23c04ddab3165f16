import type { AgentIdentity } from "../agent.ts";
import { isPrxError } from "../../../core/errors.ts";
import { EMBEDDING_MODEL, HOST_TEXT_MODELS } from "../model-types.ts";
import { characterOf } from "./character.ts";
import type { HostRpcClient } from "./host-rpc-client.ts";
import { guardRuntime, unsupportedError, UNSUPPORTED_RUNTIME_METHODS } from "./runtime-guard.ts";
import { createRuntimeLogger, formatLogCall, type HostLogLevel, type LogLine } from "./runtime-logger.ts";
import type { Entity, Relationship, Room, RuntimeProxyApi } from "./runtime-types.ts";
import type { Services } from "./services.ts";
import type { SettingsView } from "./settings-view.ts";
import type { Content, JsonValue, Memory, Plugin, State } from "./types.ts";

export { HostRpcClient } from "./host-rpc-client.ts";

/** What the runtime handed to plugin code is built from. */
export interface RuntimeContext {
  client: HostRpcClient;
  services: Services;
  /** The plugin object itself: runtime.actions / providers / evaluators are its live surfaces. */
  plugin: Plugin;
  agent: AgentIdentity;
  settings: SettingsView;
  /** Sends a `log` message to the host. */
  sendLog: (line: LogLine) => void;
  /** Whether one more log line may be sent now (checked before it is formatted); default always. */
  admitLog?: () => boolean;
  logLevel: HostLogLevel;
}

/** An event payload without the sender's runtime (the receiver gets its own) and without functions (not JSON). */
function eventPayload(payload: unknown): unknown {
  if (!payload || typeof payload !== "object" || Array.isArray(payload)) return payload ?? null;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(payload)) {
    if (key !== "runtime" && typeof value !== "function") out[key] = value;
  }
  return out;
}

type ComposeArg = string[] | { providers?: string[] } | null | undefined;

/** The 1.x form (includeList, onlyInclude) and the seed form ({ providers } = only those) on one wire shape. */
function composeArgs(includeList: ComposeArg, onlyInclude: boolean | undefined): { list: string[] | null; only: boolean } {
  if (Array.isArray(includeList)) return { list: includeList, only: onlyInclude === true };
  if (includeList && typeof includeList === "object" && Array.isArray(includeList.providers)) {
    return { list: includeList.providers, only: true };
  }
  return { list: null, only: false };
}

/**
 * The AI SDK, under most elizaOS model plugins, prints a process warning for every setting a model ignores (the
 * penalties plugin-openai always passes to the Responses API): nothing a user can act on. Unless the plugin chose
 * otherwise (the SDK's own `AI_SDK_LOG_WARNINGS` global), they go to prx's log at debug, as the plugin's lines. The
 * global is the plugin's own: each plugin has its Worker or process.
 */
function routeAiSdkWarnings(logger: RuntimeProxyApi["logger"]): void {
  const scope = globalThis as { AI_SDK_LOG_WARNINGS?: unknown };
  if (scope.AI_SDK_LOG_WARNINGS !== undefined) return;
  scope.AI_SDK_LOG_WARNINGS = (warnings: unknown[]) => {
    for (const warning of warnings) logger.debug({ warning }, "AI SDK warning");
  };
}

/**
 * The `runtime` object handed to plugin code (see runtime-types.ts for the contract of each member), wrapped so that
 * elizaOS members prx does not honour fail with PLUGIN_UNSUPPORTED.
 */
export function buildRuntimeProxyApi(ctx: RuntimeContext): RuntimeProxyApi {
  const { client, services, plugin, settings } = ctx;
  const admitLog = ctx.admitLog ?? (() => true);
  const logger = createRuntimeLogger(ctx.sendLog, ctx.logLevel, { plugin: plugin.name }, admitLog);
  routeAiSdkWarnings(logger);
  const character = characterOf(ctx.agent);
  const snapshot = <T>(items: T[] | undefined): readonly T[] => Object.freeze([...(items ?? [])]);
  let runtime: RuntimeProxyApi;
  const api: RuntimeProxyApi = {
    agentId: ctx.agent.id,
    pluginName: plugin.name,
    character,
    logger,
    get actions() {
      return snapshot(plugin.actions);
    },
    get providers() {
      return snapshot(plugin.providers);
    },
    get evaluators() {
      return snapshot(plugin.evaluators);
    },
    getService<T>(serviceType: string) {
      const live = services.live(serviceType);
      if (live) return live as T;
      if (services.has(serviceType)) return services.instance(serviceType, runtime) as Promise<T>;
      return client.call("getService", { serviceType }).then((found) => (found ?? null) as T | null);
    },
    useModel: <T>(modelType: string, params: Record<string, unknown> | string) =>
      client.call("useModel", { modelType, params: typeof params === "string" ? { text: params } : params }) as Promise<T>,
    /**
     * As in elizaOS, the handler a useModel of this type would reach, or undefined: the plugin's own model of that
     * type, else the host's text models. TEXT_EMBEDDING answers only for a plugin that registers one (the host's
     * embeddings stay reachable through useModel), so services that switch embedding work on by it stay off.
     */
    getModel(modelType: string) {
      const own = plugin.models?.[modelType];
      if (typeof own === "function") return async (rt: RuntimeProxyApi | undefined, params: Record<string, unknown>) => own(rt ?? runtime, params);
      if (Object.hasOwn(HOST_TEXT_MODELS, modelType)) return (_rt: unknown, params: Record<string, unknown>) => api.useModel(modelType, params);
      return undefined;
    },
    getMemory: (memoryId: string) => client.call("getMemory", { memoryId }) as Promise<Memory | null>,
    getMemoryById: (memoryId: string) => client.call("getMemory", { memoryId }) as Promise<Memory | null>,
    createMemory: (memory: Memory, tableName?: string, unique?: boolean) =>
      client.call("createMemory", {
        memory: unique === undefined ? memory : { ...memory, unique },
        tableName: tableName ?? null,
      }) as Promise<string>,
    updateMemory: (memory) => client.call("updateMemory", { memory }) as Promise<boolean>,
    getMemories: (params) => client.call("getMemories", params) as Promise<Memory[]>,
    searchMemories: (params) => client.call("searchMemories", params) as Promise<Memory[]>,
    /**
     * As elizaOS does: the memory (changed in place and returned) gets the embedding of its text, so searchMemories
     * finds it by vector. With no embedding model on the host it is kept as given (still found by text).
     */
    async addEmbeddingToMemory(memory: Memory) {
      const text = memory.content?.text;
      if (Array.isArray(memory.embedding) || typeof text !== "string" || text === "") return memory;
      try {
        memory.embedding = await api.useModel<number[]>(EMBEDDING_MODEL, { text });
      } catch (error) {
        if (!isPrxError(error, "PLUGIN_UNSUPPORTED")) throw error;
        logger.debug({ memoryId: memory.id }, "addEmbeddingToMemory: the host serves no embeddings; the memory is kept as given");
      }
      return memory;
    },
    async emitEvent(event: string | string[], payload?: unknown) {
      const clean = eventPayload(payload);
      for (const name of Array.isArray(event) ? event : [event]) await client.call("emitEvent", { name, payload: clean });
    },
    getSetting: (key: string) => settings.get(key),
    setSetting(key: string, value: JsonValue) {
      const undo = settings.set(key, value ?? null);
      const persisted = client.call("setSetting", { key, value: value ?? null }).then(
        () => undefined,
        (error: unknown) => {
          undo();
          throw error;
        },
      );
      // elizaOS callers do not await setSetting: a failure must still be seen, not become an unhandled rejection
      persisted.catch((error: unknown) => logger.warn({ error }, `setSetting(${JSON.stringify(key)}) was not persisted`));
      return persisted;
    },
    getCache: <T>(key: string) =>
      client.call("getCache", { key }).then((found) => (found as { value?: T } | null)?.value) as Promise<T | undefined>,
    setCache: (key: string, value: JsonValue) => client.call("setCache", { key, value }) as Promise<boolean>,
    deleteCache: (key: string) => client.call("deleteCache", { key }) as Promise<boolean>,
    getRoom: (roomId: string) => client.call("getRoom", { roomId }) as Promise<Room | null>,
    getRoomsByIds: (roomIds: string[]) => client.call("getRoomsByIds", { roomIds }) as Promise<Room[]>,
    getEntityById: (entityId: string) => client.call("getEntityById", { entityId }) as Promise<Entity | null>,
    getRelationships: (params) => client.call("getRelationships", params) as Promise<Relationship[]>,
    getConversationLength: () => ctx.agent.conversationLength,
    // plugins cannot create tasks here, so there are none to find
    getTasks: async () => [],
    getTasksByName: async () => [],
    getTask: async () => null,
    composeState(message: Memory, includeList?: ComposeArg, onlyInclude?: boolean, skipCache?: boolean) {
      const { list, only } = composeArgs(includeList, onlyInclude);
      return client.call("composeState", {
        message,
        includeList: list,
        onlyInclude: only,
        skipCache: skipCache === true,
      }) as Promise<State>;
    },
    actionCallback: (callbackId: string, response: Content, actionName?: string) =>
      client.call("actionCallback", { callbackId, response, actionName: actionName ?? null }) as Promise<JsonValue>,
    async log(params) {
      const { type, body, entityId, roomId } = params ?? { type: "log", body: {} };
      if (!admitLog()) return;
      ctx.sendLog({
        type: "log",
        level: "info",
        ...formatLogCall([{ entityId, roomId, body }, `log ${String(type)}`], { plugin: plugin.name }),
      });
    },
    registerEvent(): never {
      throw unsupportedError("registerEvent", UNSUPPORTED_RUNTIME_METHODS.get("registerEvent")!);
    },
  };
  runtime = guardRuntime(Object.freeze(api));
  return runtime;
}
