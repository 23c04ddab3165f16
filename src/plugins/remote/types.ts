import type { MemoryTicker } from "./host/memory/ticker.ts";
import type { Tool, ToolContext } from "../../tools/types.ts";
import type { ErrorCode } from "../../core/errors.ts";
import type { HostCallLimits } from "../host-calls/types.ts";
import type { Logger } from "../../core/logger.ts";
import type { PluginDescriptor, SurfaceKind } from "./protocol/index.ts";
import type { RemoteTransport } from "./manifest.ts";
import type { AgentIdentity } from "./agent.ts";
import type { Entity, GetMemoriesParams, Relationship, Room, SearchMemoriesParams } from "./worker-runtime/runtime-types.ts";
import type { Memory } from "./worker-runtime/types.ts";
import type { JsonValue } from "../../core/json/index.ts";
import type { SessionSummary } from "../../storage/types.ts";

/** A message of the session history, as composeState returns it. */
export interface HistoryMessage {
  role: string;
  content: string;
}

/** A prx session as rooms are derived from it: the session store's summary. */
export type SessionInfo = SessionSummary;

export interface SessionMessage {
  seq: number;
  role: string;
  content: string;
  createdAt: string;
}

/** Read access to the workspace's sessions (the session store fits it as it is). */
export interface SessionSource {
  get(id: string): SessionInfo | null | Promise<SessionInfo | null>;
  /** Most recently updated first. */
  list(limit: number): SessionInfo[] | Promise<SessionInfo[]>;
  /** The last `limit` messages of a session, oldest first. */
  messages(id: string, limit: number): SessionMessage[] | Promise<SessionMessage[]>;
}

/** What the host gives remote plugins. Every method gets the calling plugin's name; data is scoped by it. */
export interface RemoteHostBindings {
  /** TEXT_SMALL / TEXT_LARGE (and their aliases) -> the configured provider; returns the text. */
  useModel(plugin: string, modelType: string, params: Record<string, unknown>): Promise<unknown>;
  getMemory(plugin: string, memoryId: string): Promise<Memory | null>;
  /** Returns the memory id (the given one or a new one). */
  createMemory(plugin: string, memory: Memory, tableName: string | null): Promise<string>;
  /** False when no memory with that id exists for this plugin. */
  updateMemory(plugin: string, memory: Memory & { id: string }): Promise<boolean>;
  emitEvent(plugin: string, name: string, payload: unknown): void;
  /** The persisted value, or undefined when never set (the caller then falls back to the manifest settings). */
  getSetting(plugin: string, key: string): unknown;
  setSetting(plugin: string, key: string, value: unknown): void;
  /** Recent messages of a session (oldest first) for composeState. */
  recentMessages(sessionId: string, limit: number): Promise<HistoryMessage[]>;
  /** A service of another plugin, for runtime.getService across plugins. */
  findService?(serviceType: string): { plugin: string; serviceType: string; rpcMethods: string[] } | null;
  /** Every persisted setting of the plugin (the worker reads them once when it starts). */
  listSettings(plugin: string): Record<string, unknown>;
  /** runtime.getCache: the JSON value under `key` in the plugin's KV, or undefined. */
  getCache(plugin: string, key: string): Promise<unknown>;
  /** runtime.setCache: quota = the plugin's `[resources] max_kv_storage_mb`. */
  setCache(plugin: string, key: string, value: unknown, quotaBytes: number): Promise<void>;
  deleteCache(plugin: string, key: string): Promise<boolean>;
  /** runtime.getMemories: table "messages" also reads the session (room) history. Newest first. */
  getMemories(plugin: string, params: GetMemoriesParams, agent: AgentIdentity): Promise<Memory[]>;
  /** runtime.searchMemories: full-text search of the plugin's memories; needs params.query. */
  searchMemories(plugin: string, params: SearchMemoriesParams): Promise<Memory[]>;
  getRoom(roomId: string, agent: AgentIdentity): Promise<Room | null>;
  getEntityById(entityId: string, agent: AgentIdentity): Promise<Entity | null>;
  getRelationships(query: { entityId: string; tags?: string[] | undefined }, agent: AgentIdentity): Promise<Relationship[]>;
}

export interface StartRemotePluginOptions {
  name: string;
  /** Canonical plugin directory. */
  dir: string;
  /** Canonical entry file inside dir. */
  entryPath: string;
  transport: RemoteTransport;
  /** Manifest `[remote] settings` (merged with config); getSetting falls back to them, init(config) receives them. */
  settings: Record<string, JsonValue>;
  rpcTimeoutMs: number;
  readyTimeoutMs: number;
  /** How long shutdown waits for in-flight calls, then for the worker to exit (default REMOTE_SHUTDOWN_GRACE_MS). */
  shutdownGraceMs?: number;
  host: RemoteHostBindings;
  /** runtime.agentId / character / getConversationLength (default: prx's default `[agent]`). */
  agent?: AgentIdentity;
  /** Quota of runtime.setCache in bytes (the plugin's `[resources] max_kv_storage_mb`; default its manifest default). */
  cacheQuotaBytes?: number;
  /** The plugin's host-call budget (`[resources]`; default DEFAULT_HOST_CALL_LIMITS): runtime.* calls over it are refused. */
  hostCalls?: HostCallLimits;
  /** Clock of the host-call budget (epoch ms; tests inject one). */
  hostCallClock?: () => number;
  /** `[resources] max_memory_mb` (default REMOTE_DEFAULT_MAX_MEMORY_MB): over it the plugin is killed and restarted. */
  maxMemoryMb?: number;
  /** How often memory is measured (default REMOTE_MEMORY_CHECK_MS; tests inject shorter ones). */
  memoryCheckMs?: number;
  /** When a silent Worker counts as busy (default REMOTE_MEMORY_STALE_MS). */
  memoryStaleMs?: number;
  /** The timer its memory checks share with the runtime's other remote plugins (default: a timer of its own). */
  memoryTicker?: MemoryTicker;
  /** How long a cancelled call may go unacknowledged before the plugin is hung (default REMOTE_CANCEL_GRACE_MS). */
  cancelGraceMs?: number;
  /**
   * Stop the plugin after this long without a call (or other traffic from it) and start it again with the next call;
   * 0 or absent keeps it running. Ignored while the plugin keeps running for its descriptor (on-demand/policy.ts).
   */
  idleStopMs?: number;
  /** The clock idle time is measured with (ms; default performance.now; tests move one by hand). */
  idleClock?: () => number;
  /** Told the descriptor each start announced (the loader caches it). */
  onAnnounced?: (descriptor: PluginDescriptor) => void;
}

/**
 * idle: not running (not started yet, its descriptor read from the cache, or stopped after idle_stop_ms without a
 * call); the next call starts it. starting: a start (the first, or on demand). ready: serving. cancelling: a call was cancelled and the plugin has not acknowledged it yet
 * (new calls wait: it may be hung). restarting: killed or crashed, a new one is on its way. failed: gave up
 * restarting. stopped: shut down.
 */
export const RemoteStates = ["idle", "starting", "ready", "cancelling", "restarting", "failed", "stopped"] as const;
export type RemoteState = (typeof RemoteStates)[number];

export interface RemoteStatus {
  name: string;
  transport: RemoteTransport;
  state: RemoteState;
  /** The running subprocess, null while none runs (and always for a Worker). */
  pid: number | null;
  restarts: number;
  calls: number;
  failures: number;
  timeouts: number;
  inFlight: number;
  hostCalls: number;
  /** runtime.* calls refused: over the plugin's host-call rate or its calls in flight. */
  hostRefused: number;
  /** When the last runtime.* call was refused (ISO), null when none was. */
  lastHostRefusal: string | null;
  /** Refused input: lines/messages that were not valid JSON protocol messages, and ones over the size cap. */
  malformed: number;
  oversize: number;
  callbacks: number;
  /** Service types whose instance started (with the plugin, or on first use). */
  servicesStarted: string[];
  lastError: string | null;
  lastEvent: string | null;
  readyMs: number | null;
  /** Bytes last measured (a Worker's heap, a subprocess's RSS), null before the first measurement. */
  memoryBytes: number | null;
  maxMemoryMb: number;
  /** runtime.logger lines the host did not log: over REMOTE_OUTPUT_MAX_LINES/BYTES_PER_INTERVAL. */
  logDropped: number;
}

export interface RemoteMessageInput {
  /** The user's text of the current turn (becomes message.content.text). */
  text: string;
  sessionId: string;
  userId?: string | null;
}

export interface RemoteEvaluatorInput extends RemoteMessageInput {
  /** The assistant's final answer of the turn. */
  response: string;
}

export interface RemoteEventSubscription {
  /** The event name the plugin declared. */
  name: string;
  /** The bus topic pattern to subscribe (see PROTOCOL.md, "Events"). */
  topic: string;
}

export interface RemotePluginHandle {
  readonly name: string;
  /** Announced surfaces (announce plus init-time additions); follows restarts. */
  descriptor(): PluginDescriptor;
  /** Actions as tools: validate runs before the handler; context.sendMessage receives actionCallback messages. */
  tools(): Tool[];
  /** Provider outputs (text) for the prompt; a failing provider is logged and skipped. */
  contextProviders(message: RemoteMessageInput, signal?: AbortSignal): Promise<string[]>;
  /** Model types the plugin serves ("TEXT_LARGE", ...). */
  modelTypes(): string[];
  useModel(modelType: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<unknown>;
  eventSubscriptions(): RemoteEventSubscription[];
  /** Deliver one bus event to every handler the plugin declared for `name`. */
  deliverEvent(name: string, payload: unknown): Promise<void>;
  /** Run the evaluators after a turn (validate first); failures are logged and counted, never thrown. */
  runEvaluators(input: RemoteEvaluatorInput): Promise<{ ran: string[]; failed: string[] }>;
  /** `path` is relative to /plugins/<name> (e.g. "/notes"). Unmatched routes answer 404. */
  handleRoute(method: string, path: string, request: Request): Promise<Response>;
  /** Call a service method listed in its static rpcMethods. */
  callService(serviceType: string, method: string, args: unknown[]): Promise<unknown>;
  status(): RemoteStatus;
  /** Resolves once the worker is ready again (after a restart); at once while it is idle (a call starts it). */
  ready(): Promise<void>;
  /** Finish in-flight calls, stop services, end the worker/process. Idempotent. */
  shutdown(): Promise<void>;
}

/** Per-call options of the supervisor. */
export interface RemoteCallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Delivery target of `worker-action-callback` / runtime.actionCallback for this call. */
  onCallback?: ToolContext["sendMessage"];
}

/**
 * A running remote plugin as the host's collaborators see it (routes, action tools, host-rpc): its name, its
 * announced surfaces and a way to call one. The supervisor implements it; collaborators never see the supervisor.
 */
export interface SurfaceCalls {
  readonly name: string;
  readonly log: Logger;
  descriptor(): PluginDescriptor;
  call(surface: SurfaceKind, target: string, args: unknown, opts?: RemoteCallOptions): Promise<unknown>;
}

/** callbackId -> delivery to the turn that made the action call. */
export type CallbackRegistry = Map<string, (text: string) => void>;

/** What an action tool needs of its plugin: calls, who the agent is, and where the action's callbacks go. */
export interface ActionCalls extends SurfaceCalls {
  readonly agent: AgentIdentity;
  readonly callbacks: CallbackRegistry;
}

/** Input a transport refused: a line over the cap, or one that is not a JSON object. */
export type RefusedKind = "malformed" | "oversize";
/** The refused input, or a function making its description only when it is logged. */
export type RefusedDetail = string | (() => string);

/** Why the host killed a plugin: the errors of its pending calls and its status say so. */
export interface KillReason {
  reason: string;
  code: ErrorCode;
  hint: string;
}
