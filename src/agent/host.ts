import type { LoadedConfig } from "../config/loader.ts";
import { ContextRatios } from "./context-window.ts";
import { compactSessionNow, type SessionCompaction } from "./session-compact.ts";
import { loadConfigCached } from "../config/cache.ts";
import type { Config } from "../config/schema.ts";
import { errorMessage, PrxError } from "../core/errors.ts";
import { nullPublisher, type EventPublisher } from "../core/events.ts";
import { openWorkspace, type Workspace } from "../core/workspace.ts";
import { createMemoryBackend } from "../memory/create.ts";
import { openPgMemoryFor, sqliteRecallMode } from "./memory-embed.ts";
import type { MemoryBackend } from "../memory/types.ts";
import { createProviderResolver, isExternalProviderName } from "../providers/resolver.ts";
import { resolveModelChoice, type ModelChoice } from "../providers/routes.ts";
import type { Provider, ProviderResolver } from "../providers/types.ts";
import { openBuiltinTools } from "../tools/builtins/index.ts";
import { ToolRegistry } from "../tools/registry.ts";
import type { ToolContext, ToolSource } from "../tools/types.ts";
import type { ChannelDeliver } from "../tools/builtins/types.ts";
import { scopeToSkills, SkillBook, skillToolSource, SKILL_SOURCE_ID } from "../skills/index.ts";
import { turnTools, type HelperTurns } from "./helper-turn.ts";
import type { PluginServices } from "../plugins/runtime/index.ts";
import { identityMiddleware, type MiddlewareRunner } from "../contracts/envelopes.ts";
import { ApprovalBroker } from "./approvals/broker.ts";
import { ToolGate } from "./approvals/gate.ts";
import type { ApprovalRoute } from "./approvals/types.ts";
import { configuredTranscriber } from "./media.ts";
import { deleteSessionData, type SessionDeletion } from "./session-delete.ts";
import { SessionQueue } from "./session-queue.ts";
import { openStorage } from "../storage/open.ts";
import { UsageRecorder } from "./usage-recorder.ts";
import type { SessionStore, Storage } from "../storage/types.ts";
import type { TurnPlan } from "./plan.ts";
import { NOOP_TRACER, openTracer, type Tracer } from "../telemetry/index.ts";
import { executeTurn } from "./turn.ts";
import type { TurnExtensions, TurnInput, TurnResult } from "./types.ts";
import { agentOf, agentRequest, MAIN_AGENT, resolveAgents, ScopedMemory, toolsForAgent, type ResolvedAgent } from "../agents/index.ts";

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
  /** The "wasm:<name>" / "remote:<name>" providers served now. */
  providerNames?(): string[];
  /** "wasm:<name>" storage backends; undefined when unknown. */
  storage?(name: string): MemoryBackend | undefined;
  /** The plugin runtime's services, for the gateway's plugin routes (typed handle, never looked up by path). */
  plugins?: PluginServices;
  close?(): Promise<void>;
}

export interface AgentHost {
  workspace: Workspace;
  /** The configuration in effect now (the current generation's); a reload replaces it. */
  readonly config: Config;
  configPath: string | null;
  /** Resolves through the current generation's providers at each call. */
  providers: ProviderResolver;
  readonly memory: MemoryBackend;
  readonly tools: ToolRegistry;
  /** Tool calls waiting for the owner's approval ([autonomy]): listed and answered by the API, chat and channels. */
  approvals: ApprovalBroker;
  /** Every store of the workspace: the one door to its database. */
  storage: Storage;
  /** Kept usage totals as this host counts them (reports read through it: what is pending is written first). */
  usage: UsageRecorder;
  /** The environment the host was opened with (URLs of [storage] and [bus]). */
  env: Record<string, string | undefined>;
  sessions: SessionStore;
  events: EventPublisher;
  /** The workspace's Agent Skills: where they are, which are offered and why not. */
  skills: SkillBook;
  /** Spans of turns, model, tool and plugin calls ([telemetry]); the no-op tracer when it is off. */
  tracer: Tracer;
  /** `plan`: the model choice when the caller resolved it already (planTurn); else the turn resolves it. */
  runTurn(input: TurnInput, plan?: TurnPlan): Promise<TurnResult>;
  /** Summarise a session now (see compactSessionNow) once the turns running or queued for it have finished. */
  compactSession(id: string, choice?: { provider?: string; model?: string }): Promise<SessionCompaction>;
  /** Erase a session (see deleteSessionData) once the turns running or queued for it have finished. */
  deleteSession(id: string): Promise<SessionDeletion>;
  /** The provider and model of a turn: of the agent it names (`agent`, or `model = "agent:<id>"`), default `main`. */
  resolveModelChoice(opts: { provider?: string; model?: string; agent?: string }): { provider: string; model: string };
  /** The workspace's agents (`[agents.*]`, always `main`), `main` first: the current generation's. */
  readonly agents: ReadonlyMap<string, ResolvedAgent>;
  /** Turns running or queued. */
  readonly activeTurns: number;
  /**
   * Build every part `config` decides (providers, model routes, agent, tools and autonomy, memory, skills) and swap
   * them in as one generation: a turn keeps the generation it started with, the next takes the new one. Throws
   * (and the old generation keeps serving) when the new parts cannot be built. Reloads run one at a time.
   */
  reload(config: Config): Promise<{ generation: number }>;
  /** The current generation's number: 1 at open, one more per reload. */
  readonly generation: number;
  /** Add a tool source (an MCP client made by a reload) to every generation, current and next. */
  addToolSource(source: ToolSource): void;
  /** Where `extend` (the plugin runtime) stands; see OpenAgentHostOptions.deferExtend. */
  readonly extensions: ExtensionsStatus;
  /** Run `extend` now if it was deferred and has not started; resolves once it has finished (rejects if it threw). */
  loadExtensions(): Promise<void>;
  /** Resolves once the extensions are loaded, whoever started them (a turn, loadExtensions); never rejects. */
  readonly extensionsLoaded: Promise<void>;
  /** The plugin runtime's services once the extensions are loaded (undefined before, or without plugins). */
  readonly plugins: PluginServices | undefined;
  close(): Promise<void>;
}

export interface ExtensionsStatus {
  /** "idle": deferred and not started yet; "loading"; "ready" (also when there is no `extend`); "failed". */
  state: "idle" | "loading" | "ready" | "failed";
  /** Why it failed. */
  error?: string;
}

/** What `extend` (the plugin runtime) gets from the host being opened. */
export interface ExtendBase {
  workspace: Workspace;
  /** The configuration in effect now (a reload of the host replaces it). */
  readonly config: Config;
  /** The configuration as it is now: config.toml re-read (a reload sees new grants), or the object given to open. */
  readConfig: () => Promise<Config>;
  memory: () => MemoryBackend | null;
  providers: ProviderResolver;
  /** The host's session store (remote plugins read sessions as rooms through it). */
  sessions: SessionStore;
  /** The workspace's stores (plugin KV, cron state and remote plugins' tables live there). */
  storage: Storage;
  /** The environment the host was opened with (URLs of [storage] and [bus]). */
  env: Record<string, string | undefined>;
}

export interface OpenAgentHostOptions {
  /** The workspace flag (see openWorkspace), or a workspace the caller has opened already. */
  workspace?: string | Workspace;
  config?: Config;
  /**
   * The workspace's configuration as its caller already read it (validated, with its path): used at open instead of
   * reading it again; unlike `config`, plugin reloads still re-read config.toml.
   */
  loaded?: LoadedConfig;
  env?: Record<string, string | undefined>;
  /**
   * The workspace's stores, opened by the caller, who closes them after the host: one connection shared with what
   * ran before the host (the gateway's early /health). Default: the host opens them from `[storage]` and closes them.
   */
  storage?: Storage;
  /**
   * Called once the workspace, config and database exist, before providers and memory are resolved, so an
   * explicitly selected `wasm:` backend can be found. The plugin runtime hooks in here.
   */
  extend?: (base: ExtendBase) => Promise<HostExtensions>;
  /**
   * Return before `extend` has run: it starts with loadExtensions() (the gateway calls it once it listens) or with
   * the first turn, and every turn waits for it. Ignored when the configuration needs a plugin at open (a wasm:
   * memory backend, or a wasm:/remote: default or fallback provider).
   */
  deferExtend?: boolean;
  /**
   * With deferExtend: whether the extensions are needed now. Yes at open: they load with the host, as without
   * deferExtend. While it says no (a channel process in a workspace with no plugin, hooks or MCP server), turns run
   * without them and nothing of them is loaded; the first turn it says yes to loads them. Default: every turn needs
   * them.
   */
  extendWhen?: (now: { workspace: Workspace; config: Config }) => boolean;
  /** How one configuration's providers are made: createProviderResolver by default (tests count what it resolves). */
  providerResolver?: typeof createProviderResolver;
  /** Clock of budgets, usage days and the skills' rescan window (tests move it); Date.now by default. */
  now?: () => number;
  /**
   * How a turn that gives no route of its own asks for approvals: the gateway's wait for an answer through the API
   * and the console ({ kind: "ask" }). Default: refused at once, naming the setting (no one would be told).
   */
  approvals?: ApprovalRoute;
  /**
   * How message_send reaches a chat of a configured channel (the channels' own adapters), made from the host's
   * `[channels]` and environment; without it, channel targets refuse.
   */
  deliver?: (channels: Config["channels"], env: Record<string, string | undefined>) => ChannelDeliver;
}

/** What one configuration built: a turn takes the generation current at its start and keeps it to its end. */
interface HostGeneration {
  number: number;
  config: Config;
  providers: ProviderResolver;
  /** The model choice of the agent the options name (default `main`). */
  choose: (opts: { provider?: string; model?: string; agent?: string }) => ModelChoice;
  memory: MemoryBackend;
  tools: ToolRegistry;
  gate: ToolGate;
  transcribe: ReturnType<typeof configuredTranscriber>;
  agents: ReadonlyMap<string, ResolvedAgent>;
  /** The memory plugins see: the shared one, never an agent's own (the whole memory when no agent keeps its own). */
  sharedMemory: MemoryBackend;
  /** What one agent's turns run on in this generation (made once per agent). */
  viewOf(id: string | undefined): AgentView;
}

/** One agent's turns: its resolved configuration, the gate of its tools, and its memory. */
interface AgentView {
  agent: ResolvedAgent;
  gate: ToolGate;
  memory: MemoryBackend;
  /** The turn's model choice as this agent's (made once per view, not per turn). */
  resolveModelChoice: (opts: { provider?: string; model?: string }) => ModelChoice;
  /** `memory` for the turn's dependencies. */
  memoryOf: () => MemoryBackend;
}

/** CONFLICT when the session exists and is another agent's conversation. */
async function ownedBy(sessions: SessionStore, id: string, agent: string): Promise<void> {
  const session = await sessions.get(id);
  if (session && session.agent !== agent) {
    throw new PrxError("CONFLICT", `session ${id} is agent ${session.agent}'s conversation, not agent ${agent}'s`, {
      status: 409,
      hint: `continue it as agent ${session.agent} (--agent ${session.agent}, or model "agent:${session.agent}"), or start another session`,
    });
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** True when opening the host must resolve something only a plugin provides. */
function needsExtensionsAtOpen(config: Config): boolean {
  return (
    config.memory.backend.startsWith("wasm:") ||
    isExternalProviderName(config.default_provider) ||
    config.reliability.fallback_providers.some(isExternalProviderName)
  );
}

export async function openAgentHost(options: OpenAgentHostOptions = {}): Promise<AgentHost> {
  const env = options.env ?? process.env;
  const workspace = typeof options.workspace === "object" ? options.workspace : openWorkspace(options.workspace);
  const loaded = options.config
    ? { config: options.config, path: null }
    : (options.loaded ?? (await loadConfigCached(workspace.configPath, workspace.cacheDir, env)));
  const config = loaded.config;
  const ownsStorage = options.storage === undefined;
  // the TTLs of idempotency keys and stored responses follow a reload (swap below)
  let gateway = config.gateway;
  const storage =
    options.storage ??
    (await openStorage(config.storage, workspace.dbPath, env, {
      idempotencyTtlMs: () => gateway.idempotency_ttl_s * 1000,
      responsesTtlMs: () => gateway.responses_ttl_days * 86_400_000,
    }));

  let tracer: Tracer = NOOP_TRACER;
  try {
    tracer = await openTracer(config.telemetry, env);
    let extensions: HostExtensions = {};
    let current: HostGeneration | null = null;
    const makeResolver = options.providerResolver ?? createProviderResolver;
    const resolverFor = (next: Config) =>
      makeResolver(next, {
        env,
        external: (name) => extensions.provider?.(name),
        externalNames: () => extensions.providerNames?.() ?? [],
        configPath: loaded.path,
      });
    const firstProviders = resolverFor(config);
    // what plugins hold for the host's life: resolved through the generation current at each call
    const providers: ProviderResolver = {
      resolve: (name) => (current?.providers ?? firstProviders).resolve(name),
      names: () => (current?.providers ?? firstProviders).names(),
      pluginNames: () => (current?.providers ?? firstProviders).pluginNames?.() ?? [],
    };
    const readConfig = options.config
      ? async () => current?.config ?? config
      : async () => (await loadConfigCached(workspace.configPath, workspace.cacheDir, env)).config;
    const sessions = storage.sessions;
    const base: ExtendBase = {
      workspace,
      get config() {
        return current?.config ?? config;
      },
      readConfig,
      // plugins serve every agent: they see the shared memory, never an agent's own
      memory: () => current?.sharedMemory ?? null,
      providers,
      sessions,
      storage,
      env,
    };
    const status: ExtensionsStatus = { state: options.extend ? "idle" : "ready" };
    let markLoaded!: () => void;
    const extensionsLoaded = new Promise<void>((resolve) => (markLoaded = resolve));
    if (!options.extend) markLoaded();
    const deferred =
      options.extend !== undefined &&
      options.deferExtend === true &&
      !needsExtensionsAtOpen(config) &&
      !(options.extendWhen?.({ workspace, config }) ?? false);
    if (options.extend && !deferred) {
      status.state = "loading";
      extensions = await options.extend(base);
      status.state = "ready";
      markLoaded();
    }

    const skills = new SkillBook({ workspace: workspace.root, skills: config.skills, config, env, now: options.now });
    const approvals = new ApprovalBroker(() => storage.approvals);
    const defaultRoute: ApprovalRoute = options.approvals ?? { kind: "refuse" };
    // a built-in that asks another tool (web_search through an MCP server) calls through the current registry
    const callTool = (name: string, rawArguments: string, context: ToolContext) => current!.tools.call(name, rawArguments, context);
    const currentMemory = () => current!.memory;

    /** The parts one configuration decides, built before anything is swapped; the previous one's kept where unchanged. */
    const build = async (next: Config, previous: HostGeneration | null, resolver: ProviderResolver): Promise<HostGeneration> => {
      const agents = resolveAgents(next);
      const choose = (opts: { provider?: string; model?: string; agent?: string }) => {
        const named = agentRequest(opts);
        return resolveModelChoice(agentOf(agents, named.agent).config, { provider: opts.provider, model: named.model });
      };
      // fail now, not at the first turn, when the configured provider cannot be resolved
      resolver.resolve(choose({}).provider);
      const keepMemory =
        previous !== null &&
        sameJson(previous.config.memory, next.memory) &&
        // recall that embeds (PostgreSQL, SQLite hybrid) follows the default provider's embedding model
        ((next.memory.backend !== "postgres" && next.memory.backend !== "sqlite") ||
          (sameJson(previous.config.providers, next.providers) && previous.config.default_provider === next.default_provider));
      let memory: MemoryBackend;
      if (keepMemory) memory = previous.memory;
      else {
        const pgMemory = next.memory.backend === "postgres" && storage.sql ? await openPgMemoryFor({ sql: storage.sql, memoryPresence: storage.memoryPresence }, next, resolver) : null;
        // hybrid recall on SQLite loads sqlite-vec only when the default provider embeds
        const sqliteHybrid = next.memory.backend === "sqlite" ? (await sqliteRecallMode(storage, workspace.cacheDir, next, resolver)).hybrid : null;
        memory = createMemoryBackend(next.memory.backend, storage, (name) => extensions.storage?.(name), pgMemory, sqliteHybrid);
      }
      const registryOptions = {
        builtins: await openBuiltinTools({
          config: next.tools,
          workspace: workspace.root,
          memory: currentMemory,
          callTool,
          readableDirs: () => skills.readableDirs(),
          sessions: () => storage.sessions,
          sessionLinks: () => storage.sessionLinks,
          ...(options.deliver ? { deliver: options.deliver(next.channels, env) } : {}),
          cron: () => ({ jobs: storage.cronJobs, state: storage.cron, now: options.now ?? Date.now }),
        }),
        disabled: next.tools.disabled,
      };
      const tools = previous ? previous.tools.next(registryOptions) : new ToolRegistry(registryOptions);
      const gate = new ToolGate({ autonomy: next.autonomy, tools, broker: approvals, audit: () => storage.audit });
      const transcribe = configuredTranscriber(next, resolver);
      const owners = new Set([...agents.values()].filter((agent) => agent.memoryScope === "own").map((agent) => agent.id));
      const sharedMemory = owners.size > 0 ? new ScopedMemory(() => memory, MAIN_AGENT, false, owners) : memory;
      // an agent that changes nothing (`main` by default) runs on the generation's own pieces
      const views = new Map<string, AgentView>();
      const viewOf = (id: string | undefined): AgentView => {
        const agent = agentOf(agents, id);
        let view = views.get(agent.id);
        if (!view) {
          const plain = agent.config === next && agent.toolsAllow === null && agent.toolsDeny.length === 0;
          const agentGate = plain
            ? gate
            : new ToolGate({ autonomy: agent.config.autonomy, tools: toolsForAgent(agent, tools), broker: approvals, audit: () => storage.audit });
          const scoped = owners.size > 0 ? new ScopedMemory(() => memory, agent.id, agent.memoryScope === "own", owners) : memory;
          const agentId = agent.id;
          view = {
            agent,
            gate: agentGate,
            memory: scoped,
            resolveModelChoice: (opts) => choose({ ...opts, agent: agentId }),
            memoryOf: () => scoped,
          };
          views.set(agent.id, view);
        }
        return view;
      };
      return { number: (previous?.number ?? 0) + 1, config: next, providers: resolver, choose, memory, tools, gate, transcribe, agents, sharedMemory, viewOf };
    };

    /** Make `next` current: the one swap of a reload (skills follow the configuration they are part of). */
    const swap = (next: HostGeneration): void => {
      skills.configure(next.config.skills, next.config);
      if (next.config.skills.enabled) next.tools.addSource(skillToolSource(skills));
      else next.tools.removeSource(SKILL_SOURCE_ID);
      current = next;
      gateway = next.config.gateway;
    };
    swap(await build(config, null, firstProviders));
    for (const source of extensions.toolSources ?? []) current!.tools.addSource(source);

    let loading: Promise<void> | null = deferred ? null : Promise.resolve();
    let closed = false;
    const loadExtensions = (): Promise<void> =>
      (loading ??= (async () => {
        if (closed) throw new PrxError("ABORTED", "the agent host is closed; its plugins are not loaded any more");
        status.state = "loading";
        try {
          extensions = await options.extend!(base);
        } catch (cause) {
          status.state = "failed";
          status.error = errorMessage(cause);
          throw new PrxError("PLUGIN_LOAD", `the plugin runtime did not start: ${status.error}`, {
            cause,
            status: 503,
            hint: "see the log above, fix the plugin or its manifest, and restart",
          });
        }
        for (const source of extensions.toolSources ?? []) current!.tools.addSource(source);
        status.state = "ready";
        markLoaded();
      })());

    const extendWhen = options.extendWhen;
    const extensionsNeeded = (): boolean =>
      status.state !== "ready" && (status.state !== "idle" || !extendWhen || extendWhen({ workspace, config: current!.config }));

    let reloading: Promise<unknown> = Promise.resolve();
    const reload = (next: Config): Promise<{ generation: number }> => {
      const run = reloading.then(async () => {
        if (closed) throw new PrxError("ABORTED", "the agent host is closed");
        const built = await build(next, current, resolverFor(next));
        swap(built);
        return { generation: built.number };
      });
      reloading = run.catch(() => undefined);
      return run;
    };

    const queue = new SessionQueue();
    // Resolved per publish: with a deferred `extend`, the plugin bus arrives after open.
    const events: EventPublisher = {
      publish: (topic, payload) => (extensions.events ?? nullPublisher).publish(topic, payload),
      wants: (topic) => (extensions.events ?? nullPublisher).wants?.(topic) ?? true,
    };
    const choose = (opts: { provider?: string; model?: string; agent?: string }) => current!.choose(opts);
    const media = () => storage.media;
    const contextRatios = new ContextRatios();
    const recorder = new UsageRecorder(() => storage.usage);
    const usage = () => recorder;
    const skillsText = async (filter: readonly string[] | undefined) => (skills.enabled ? (await skills.section(filter)).text : "");

    // A helper's session is new and its own: no other process writes to it, so it takes no lease (a parent holding its
    // lease while its helper waited for another from the same pool could wait for ever once the pool is full).
    const helpers: HelperTurns = { run: (input) => run(input, undefined, false), links: () => storage.sessionLinks, now: options.now ?? Date.now };
    // A turn with its own history (the OpenAI API's) stores nothing, so it is not ordered behind the session's turns.
    const run = (asked: TurnInput, plan?: TurnPlan, leased = true): Promise<TurnResult> => {
      let input: TurnInput;
      let named: { agent: string | undefined };
      try {
        const request = agentRequest(asked);
        named = request;
        input = copyKeepingGetters(asked);
        input.model = request.model;
      } catch (error) {
        return Promise.reject(error);
      }
      const turn = async () => {
        // the generation current when the turn starts serves it to its end, whatever a reload swaps in meanwhile
        const g = current!;
        const view = g.viewOf(named.agent);
        input.agent = view.agent.id;
        // the agent's skills allowlist, unless the turn names its own
        if (input.skills === undefined && view.agent.skills) input.skills = view.agent.skills;
        // a session is one agent's conversation: another agent does not read it
        if (g.agents.size > 1 && !input.historyOverride) await ownedBy(sessions, input.sessionId, view.agent.id);
        return executeTurn(
          {
            config: view.agent.config,
            workspace: workspace.root,
            sessions,
            providers: g.providers,
            resolveModelChoice: view.resolveModelChoice,
            tools: turnTools(
              scopeToSkills(
                view.gate.forTurn(
                  { sessionId: input.sessionId, channel: input.channel, sender: () => input.userId ?? null, agent: view.agent.id },
                  input.approvals ?? defaultRoute,
                ),
                skills,
                input.skills,
              ),
              input,
              helpers,
            ),
            memory: view.memoryOf,
            middleware: extensions.middleware ?? identityMiddleware,
            events,
            extensions,
            media,
            transcribe: g.transcribe,
            contextRatios,
            usage,
            skills: skillsText,
            ...(options.now ? { now: options.now } : {}),
            tracer,
          },
          input,
          plan,
        );
      };
      if (input.historyOverride) return queue.runUnordered(turn);
      // One turn at a time per session: in this process (the queue), and across processes sharing the store (the lease).
      const leases = leased ? storage.leases : null;
      return queue.run(input.sessionId, leases ? () => leases.hold(input.sessionId, turn) : turn);
    };

    return {
      workspace,
      get config() {
        return current!.config;
      },
      configPath: loaded.path,
      providers,
      get memory() {
        return current!.memory;
      },
      get tools() {
        return current!.tools;
      },
      get agents() {
        return current!.agents;
      },
      reload,
      get generation() {
        return current!.number;
      },
      addToolSource: (source) => current!.tools.addSource(source),
      approvals,
      storage,
      usage: recorder,
      env,
      sessions,
      events,
      skills,
      tracer,
      resolveModelChoice: choose,
      get activeTurns() {
        return queue.active;
      },
      extensions: status,
      loadExtensions,
      extensionsLoaded,
      get plugins() {
        return extensions.plugins;
      },
      runTurn: (input, plan) => (extensionsNeeded() ? loadExtensions().then(() => run(input, plan)) : run(input, plan)),
      compactSession: (id, choice) => {
        // as the session's agent: its model, and its memory for what the summariser keeps
        const compact = async () => {
          const g = current!;
          const owner = g.agents.size > 1 ? (await sessions.get(id))?.agent : undefined;
          const view = g.viewOf(owner !== undefined && g.agents.has(owner) ? owner : undefined);
          const deps = { config: view.agent.config, sessions, tools: g.tools, workspace: workspace.root, providers: g.providers, resolveModelChoice: view.resolveModelChoice, memory: view.memoryOf };
          return compactSessionNow(deps, id, choice);
        };
        return queue.run(id, storage.leases ? () => storage.leases!.hold(id, compact) : compact);
      },
      deleteSession: (id) => {
        const erase = () => deleteSessionData(sessions, currentMemory(), id, storage.sessionLinks);
        return queue.run(id, storage.leases ? () => storage.leases!.hold(id, erase) : erase);
      },
      async close() {
        closed = true;
        if (loading) await loading.catch(() => undefined);
        await reloading;
        await extensions.close?.();
        await recorder.close();
        await tracer.close();
        if (ownsStorage) await storage.close();
      },
    };
  } catch (error) {
    // nothing else holds the stores of a host that did not open
    await tracer.close();
    if (ownsStorage) await storage.close();
    throw error;
  }
}

/**
 * A copy with its getters kept as getters (the CLI's user id is looked up only when a middleware reads it); data
 * properties are assigned, which keeps the copy a plain object (a whole descriptor map per turn cost ~1.5 us more).
 * `__lookupGetter__` stops at an own data property and allocates nothing: only a getter's descriptor is made.
 */
function copyKeepingGetters(source: TurnInput): TurnInput {
  const copy: Record<string, unknown> = {};
  const from = source as unknown as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    if (lookupGetter.call(source, key)) Object.defineProperty(copy, key, Object.getOwnPropertyDescriptor(source, key)!);
    else copy[key] = from[key];
  }
  return copy as unknown as TurnInput;
}

const lookupGetter = (Object.prototype as unknown as { __lookupGetter__(key: string): (() => unknown) | undefined }).__lookupGetter__;
