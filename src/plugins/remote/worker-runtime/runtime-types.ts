/**
 * The `runtime` a remote plugin's code gets: the part of elizaOS 1.x's IAgentRuntime that prx honours, with the
 * shapes elizaOS uses. Data crossing to the host is JSON. See PROTOCOL.md ("runtime.*") for each method's semantics.
 */
import type { Action, Content, Evaluator, JsonValue, Memory, Provider, State } from "./types.ts";

/** elizaOS Character, filled from `[agent]` of config.toml (lists prx has no notion of are empty). */
export interface Character {
  id: string;
  name: string;
  username: string;
  bio: string | string[];
  system: string;
  plugins: string[];
  topics: string[];
  adjectives: string[];
  postExamples: string[];
  messageExamples: unknown[][];
  knowledge: unknown[];
  templates: Record<string, string>;
  settings: Record<string, never>;
  secrets: Record<string, never>;
  style: { all: string[]; chat: string[]; post: string[] };
}

/** A prx session seen as an elizaOS room. */
export interface Room {
  id: string;
  name: string;
  agentId: string;
  /** The channel the session belongs to ("cli", "gateway", "telegram", ...). */
  source: string;
  type: "DM" | "API";
  channelId: string;
  metadata: { createdAt: string; updatedAt: string; messageCount: number };
}

/** A participant of a session: the agent, or the user of one session (`user@<sessionId>`). */
export interface Entity {
  id: string;
  names: string[];
  agentId: string;
  metadata: Record<string, JsonValue>;
  components: never[];
}

/** Two entities that share a session. */
export interface Relationship {
  id: string;
  sourceEntityId: string;
  targetEntityId: string;
  agentId: string;
  tags: string[];
  metadata: { roomId: string };
  createdAt: string;
}

export interface GetMemoriesParams {
  tableName: string;
  roomId?: string;
  entityId?: string;
  count?: number;
  offset?: number;
  start?: number;
  end?: number;
  unique?: boolean;
  [key: string]: unknown;
}

export interface SearchMemoriesParams {
  tableName: string;
  /** The text to search for (FTS5) when no `embedding` is given. */
  query?: string;
  /** Searched by cosine similarity with the memories' own `embedding`; takes precedence over `query`. */
  embedding?: number[];
  roomId?: string;
  entityId?: string;
  count?: number;
  match_threshold?: number;
  [key: string]: unknown;
}

/** pino-style calls as elizaOS plugins make them: `logger.info("text")`, `logger.info({ error }, "text")`. */
export type LogCall = (first?: unknown, message?: unknown, ...rest: unknown[]) => void;

export interface RuntimeLogger {
  readonly level: string;
  trace: LogCall;
  debug: LogCall;
  info: LogCall;
  warn: LogCall;
  error: LogCall;
  fatal: LogCall;
  success: LogCall;
  progress: LogCall;
  log: LogCall;
  clear(): void;
  child(bindings: Record<string, unknown>): RuntimeLogger;
}

export interface LogParams {
  body: Record<string, unknown>;
  entityId?: string;
  roomId?: string;
  type: string;
}

/** getService: the live instance of the plugin's own started service, else a round trip (see the method). */
export type ServiceLookup<T> = T | null | Promise<T | null>;

/** The subset of elizaOS's IAgentRuntime a remote plugin gets. Anything else fails with PLUGIN_UNSUPPORTED. */
export interface RuntimeProxyApi {
  readonly agentId: string;
  readonly pluginName: string;
  readonly character: Readonly<Character>;
  readonly logger: RuntimeLogger;
  /** This plugin's own live actions, providers and evaluators (read-only snapshots). */
  readonly actions: readonly Action[];
  readonly providers: readonly Provider[];
  readonly evaluators: readonly Evaluator[];
  /**
   * The plugin's own service: its live instance, synchronously, once started (as in elizaOS); a lazily started
   * service with rpcMethods that has not started yet is started and a Promise returned. Another plugin's service
   * type: a Promise of its descriptor `{ plugin, serviceType, rpcMethods }`, or null.
   */
  getService<T = unknown>(serviceType: string): ServiceLookup<T>;
  /** TEXT_* models answer text; TEXT_EMBEDDING (params `{ text }` or the text itself) answers a vector. */
  useModel<T = unknown>(modelType: string, params: Record<string, unknown> | string, provider?: string): Promise<T>;
  /** The handler useModel(modelType) reaches: the plugin's own model, else the host's text models; else undefined. */
  getModel(modelType: string): ((runtime: RuntimeProxyApi | undefined, params: Record<string, unknown>) => Promise<unknown>) | undefined;
  getMemory(memoryId: string): Promise<Memory | null>;
  getMemoryById(memoryId: string): Promise<Memory | null>;
  createMemory(memory: Memory, tableName?: string, unique?: boolean): Promise<string>;
  /** The memory as given: memories are searched by text, so none needs an embedding before it is stored. */
  addEmbeddingToMemory(memory: Memory): Promise<Memory>;
  updateMemory(memory: Partial<Memory> & { id: string }): Promise<boolean>;
  getMemories(params: GetMemoriesParams): Promise<Memory[]>;
  searchMemories(params: SearchMemoriesParams): Promise<Memory[]>;
  emitEvent(event: string | string[], payload?: unknown): Promise<void>;
  /** Synchronous, as in elizaOS: persisted value, else the plugin's settings, else null; "true"/"false" -> boolean. */
  getSetting(key: string): JsonValue | null;
  /** Takes effect at once for getSetting; the returned Promise settles when the host persisted it. */
  setSetting(key: string, value: JsonValue, secret?: boolean): Promise<void>;
  getCache<T = JsonValue>(key: string): Promise<T | undefined>;
  setCache(key: string, value: JsonValue): Promise<boolean>;
  deleteCache(key: string): Promise<boolean>;
  getRoom(roomId: string): Promise<Room | null>;
  getRoomsByIds(roomIds: string[]): Promise<Room[]>;
  getEntityById(entityId: string): Promise<Entity | null>;
  getRelationships(params: { entityId: string; tags?: string[] }): Promise<Relationship[]>;
  /** How many recent messages of a session prx puts into a turn (`[agent] max_history_messages`). */
  getConversationLength(): number;
  /** No task can exist (createTask is PLUGIN_UNSUPPORTED): none, so a task service polling for work finds none. */
  getTasks(params?: Record<string, unknown>): Promise<unknown[]>;
  getTasksByName(name: string): Promise<unknown[]>;
  getTask(id: string): Promise<null>;
  /** elizaOS 1.x: `composeState(message, includeList?, onlyInclude?, skipCache?)`; also `(message, { providers })`. */
  composeState(
    message: Memory,
    includeList?: string[] | { providers?: string[] } | null,
    onlyInclude?: boolean,
    skipCache?: boolean,
  ): Promise<State>;
  actionCallback(callbackId: string, response: Content, actionName?: string): Promise<JsonValue>;
  /** elizaOS's database log: written to the host's log (stderr, PRX_LOG) as one info line. */
  log(params: LogParams): Promise<void>;
  /** Always throws PLUGIN_UNSUPPORTED: function values cannot cross the boundary; declare handlers on Plugin.events. */
  registerEvent(name: string, handler: unknown): never;
}
