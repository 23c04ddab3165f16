import { PrxError } from "../../../../core/errors.ts";
import type { EventPublisher } from "../../../../core/events.ts";
import { newId } from "../../../../core/ids.ts";
import type { MemoryBackend } from "../../../../memory/types.ts";
import type { ChatMessage, ProviderResolver } from "../../../../providers/types.ts";
import { RemoteCacheStore } from "./cache-store.ts";
import type { PluginKvStore, RemotePluginStore } from "../../../../storage/types.ts";
import {
  REMOTE_SETTINGS_MAX_PER_PLUGIN,
  REMOTE_SETTINGS_MAX_TOTAL_BYTES,
  REMOTE_SETTING_MAX_KEY_BYTES,
  REMOTE_SETTING_MAX_VALUE_BYTES,
  REMOTE_EMBEDDING_MAX_TEXTS,
} from "../../limits.ts";
import { emitTopic } from "../../events.ts";
import { memoryKey, RemoteMemoryQuery } from "./memories.ts";
import { entityOf, relationshipsOf, roomOf } from "./rooms.ts";
import type { HistoryMessage, RemoteHostBindings, SessionSource } from "../../types.ts";
import type { Memory } from "../../worker-runtime/types.ts";
import { EMBEDDING_MODEL, HOST_TEXT_MODELS } from "../../model-types.ts";

/** Largest memory object (JSON) a plugin may store. */
export const REMOTE_MEMORY_MAX_BYTES = 256 * 1024;

export interface ModelChoice {
  provider: string;
  model: string;
}

export interface RemoteHostBindingsOptions {
  /** Where settings and the whole memory objects are kept (the workspace storage's remote plugin store). */
  store: RemotePluginStore;
  /** The live memory backend at call time (null when memory is "none"). */
  memory: () => MemoryBackend | null;
  providers: ProviderResolver;
  events: EventPublisher;
  /** Default provider and model for TEXT_* calls; a function is asked at call time (config reload). */
  model: ModelChoice | (() => ModelChoice);
  /** Session history for composeState. */
  history?: (sessionId: string, limit: number) => HistoryMessage[] | Promise<HistoryMessage[]>;
  /** Sessions, for rooms, entities, relationships and the table "messages" (none: no rooms exist). */
  sessions?: SessionSource;
  /** Where runtime.getCache/setCache keep values (the workspace storage's plugin KV). */
  pluginKv: PluginKvStore;
}

const TEXT_MODELS = HOST_TEXT_MODELS;

/**
 * The default host bindings: settings persisted per plugin in the workspace database, memories in the memory backend
 * (text, searchable by memory_recall) plus a per-plugin table holding the whole elizaOS Memory object.
 */
export function createRemoteHostBindings(options: RemoteHostBindingsOptions): RemoteHostBindings {
  const { store } = options;
  const model = () => (typeof options.model === "function" ? options.model() : options.model);
  const cache = new RemoteCacheStore(options.pluginKv);
  const memories = new RemoteMemoryQuery(store, options.memory, options.sessions ?? null);
  const sessions = options.sessions;

  const persist = async (plugin: string, memory: Memory & { id: string }, table: string): Promise<void> => {
    const json = JSON.stringify(memory);
    if (Buffer.byteLength(json) > REMOTE_MEMORY_MAX_BYTES) {
      throw new PrxError("PAYLOAD_TOO_LARGE", `memory of plugin ${plugin} exceeds ${REMOTE_MEMORY_MAX_BYTES} bytes`);
    }
    const text = typeof memory.content?.text === "string" ? memory.content.text : "";
    const backend = options.memory();
    if (backend && text) {
      await backend.store(memoryKey(plugin, memory.id), text, table.slice(0, 64), memory.roomId ?? null);
    }
    const now = new Date().toISOString();
    store.putMemory(plugin, memory.id, table, json, now);
  };

  /**
   * TEXT_EMBEDDING: the configured provider's embeddings (`embedding_model`): one vector for `params.text`, or one per
   * text, in one request, for `params.texts` (the batch form plugin-knowledge uses).
   */
  const embed = async (plugin: string, params: Record<string, unknown>): Promise<number[] | number[][]> => {
    const { text, texts } = params;
    const batch = Array.isArray(texts);
    const input = batch ? texts : [text];
    if (input.length === 0 || input.some((t) => typeof t !== "string" || t.length === 0)) {
      throw new PrxError("BAD_REQUEST", `useModel(${EMBEDDING_MODEL}) needs params.text (a non-empty string) or params.texts (non-empty strings)`);
    }
    if (input.length > REMOTE_EMBEDDING_MAX_TEXTS) {
      throw new PrxError("LIMIT_EXCEEDED", `useModel(${EMBEDDING_MODEL}) of ${plugin}: ${input.length} texts, at most ${REMOTE_EMBEDDING_MAX_TEXTS} at once`, {
        hint: "embed the texts in smaller batches",
      });
    }
    const provider = options.providers.resolve(model().provider);
    if (!provider.embed) {
      const message = `useModel(${EMBEDDING_MODEL}) of ${plugin}: provider "${provider.name}" serves no embeddings`;
      throw new PrxError("PLUGIN_UNSUPPORTED", message, {
        hint: `set embedding_model in [providers.${provider.name}] (OpenAI-compatible providers)`,
      });
    }
    const { embeddings } = await provider.embed({ input: input as string[] });
    return batch ? embeddings : embeddings[0]!;
  };

  return {
    async useModel(plugin, modelType, params) {
      if (modelType === EMBEDDING_MODEL) return embed(plugin, params);
      const size = TEXT_MODELS[modelType];
      if (!size) {
        throw new PrxError("PLUGIN_UNSUPPORTED", `useModel(${modelType}) is not served by prx for plugin ${plugin}`, {
          hint: `supported model types: ${[...Object.keys(TEXT_MODELS), EMBEDDING_MODEL].join(", ")}`,
        });
      }
      const choice = model();
      const provider = options.providers.resolve(choice.provider);
      const messages: ChatMessage[] = [];
      if (typeof params.system === "string") messages.push({ role: "system", content: params.system });
      if (Array.isArray(params.messages)) {
        for (const m of params.messages as Array<{ role?: unknown; content?: unknown }>) {
          if (typeof m?.content === "string" && (m.role === "user" || m.role === "assistant" || m.role === "system")) {
            messages.push({ role: m.role, content: m.content });
          }
        }
      }
      if (typeof params.prompt === "string") messages.push({ role: "user", content: params.prompt });
      if (messages.length === 0)
        throw new PrxError("BAD_REQUEST", `useModel(${modelType}) needs params.prompt or params.messages`);
      const response = await provider.chat({
        messages,
        model: choice.model,
        ...(typeof params.temperature === "number" ? { temperature: params.temperature } : {}),
        ...(typeof params.maxTokens === "number" ? { maxTokens: params.maxTokens } : {}),
      });
      return response.text;
    },
    async getMemory(plugin, memoryId) {
      const json = store.memory(plugin, memoryId);
      if (json !== undefined) return JSON.parse(json) as Memory;
      const entry = await options.memory()?.get(memoryKey(plugin, memoryId));
      if (!entry) return null;
      return {
        id: memoryId,
        roomId: entry.session_id ?? undefined,
        content: { text: entry.content },
        createdAt: Date.parse(entry.timestamp),
      };
    },
    async createMemory(plugin, memory, tableName) {
      const id = memory.id ?? newId("mem");
      await persist(plugin, { createdAt: Date.now(), ...memory, id }, tableName ?? "memories");
      return id;
    },
    async updateMemory(plugin, memory) {
      const json = store.memory(plugin, memory.id);
      if (json === undefined) return false;
      const old = JSON.parse(json) as Memory;
      const merged = { ...old, ...memory, content: { ...old.content, ...memory.content } };
      await persist(plugin, merged, "memories");
      return true;
    },
    emitEvent(plugin, name, payload) {
      const topic = emitTopic(name);
      if (topic.startsWith("prx.")) {
        throw new PrxError(
          "FORBIDDEN",
          `plugin ${plugin} cannot emit "${name}": the prx.* namespace is reserved for the host`,
        );
      }
      options.events.publish(topic, { plugin, name, payload });
    },
    getSetting(plugin, key) {
      const value = store.setting(plugin, key);
      return value !== undefined ? (JSON.parse(value) as unknown) : undefined;
    },
    setSetting(plugin, key, value) {
      if (Buffer.byteLength(key) > REMOTE_SETTING_MAX_KEY_BYTES) {
        throw new PrxError(
          "LIMIT_EXCEEDED",
          `setting key of plugin ${plugin} exceeds ${REMOTE_SETTING_MAX_KEY_BYTES} bytes`,
        );
      }
      const json = JSON.stringify(value ?? null);
      if (Buffer.byteLength(json) > REMOTE_SETTING_MAX_VALUE_BYTES) {
        throw new PrxError(
          "LIMIT_EXCEEDED",
          `setting ${key} of plugin ${plugin} exceeds ${REMOTE_SETTING_MAX_VALUE_BYTES} bytes`,
        );
      }
      const others = store.settingsBesides(plugin, key);
      if (store.setting(plugin, key) === undefined && others.n >= REMOTE_SETTINGS_MAX_PER_PLUGIN) {
        throw new PrxError("LIMIT_EXCEEDED", `plugin ${plugin} already has ${REMOTE_SETTINGS_MAX_PER_PLUGIN} settings`);
      }
      const total = others.bytes + Buffer.byteLength(key) + Buffer.byteLength(json);
      if (total > REMOTE_SETTINGS_MAX_TOTAL_BYTES) {
        throw new PrxError(
          "LIMIT_EXCEEDED",
          `settings of plugin ${plugin} would take ${total} bytes, over ${REMOTE_SETTINGS_MAX_TOTAL_BYTES} (keys and values)`,
          { hint: "keep large or many values in the plugin's cache (runtime.setCache) or memories instead" },
        );
      }
      store.putSetting(plugin, key, json, new Date().toISOString());
    },
    listSettings(plugin) {
      return Object.fromEntries(store.settings(plugin).map((r) => [r.key, JSON.parse(r.value) as unknown]));
    },
    getCache: (plugin, key) => cache.get(plugin, key),
    setCache: (plugin, key, value, quotaBytes) => cache.set(plugin, key, value, quotaBytes),
    deleteCache: (plugin, key) => cache.delete(plugin, key),
    getMemories: async (plugin, params, agent) => memories.getMemories(plugin, params, agent),
    searchMemories: (plugin, params) => memories.searchMemories(plugin, params),
    async getRoom(roomId, agent) {
      const session = await sessions?.get(roomId);
      return session ? roomOf(session, agent) : null;
    },
    getEntityById: async (entityId, agent) => (sessions ? entityOf(entityId, sessions, agent) : null),
    getRelationships: async (query, agent) => (sessions ? relationshipsOf(query, sessions, agent) : []),
    async recentMessages(sessionId, limit) {
      return options.history ? await options.history(sessionId, limit) : [];
    },
  };
}
