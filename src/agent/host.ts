import type { LoadedConfig } from "../config/loader.ts";
import { ContextRatios } from "./context-window.ts";
import { compactSessionNow, type SessionCompaction } from "./session-compact.ts";
import { loadConfigCached } from "../config/cache.ts";
import type { Config } from "../config/schema.ts";
import { errorMessage, PrxError } from "../core/errors.ts";
import { nullPublisher, type EventPublisher } from "../core/events.ts";
import { openWorkspace, type Workspace } from "../core/workspace.ts";
import { createMemoryBackend } from "../memory/create.ts";
import { openPgMemoryFor } from "./memory-embed.ts";
import type { MemoryBackend } from "../memory/types.ts";
import { createProviderResolver, isExternalProviderName } from "../providers/resolver.ts";
import { resolveModelChoice } from "../providers/routes.ts";
import type { Provider, ProviderResolver } from "../providers/types.ts";
import { openBuiltinTools } from "../tools/builtins/index.ts";
import { ToolRegistry } from "../tools/registry.ts";
import type { ToolContext, ToolSource } from "../tools/types.ts";
import type { ChannelDeliver } from "../tools/builtins/types.ts";
import { scopeToSkills, SkillBook, skillToolSource } from "../skills/index.ts";
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
  /** "wasm:<name>" storage backends; undefined when unknown. */
  storage?(name: string): MemoryBackend | undefined;
  /** The plugin runtime's services, for the gateway's plugin routes (typed handle, never looked up by path). */
  plugins?: PluginServices;
  close?(): Promise<void>;
}

export interface AgentHost {
  workspace: Workspace;
  config: Config;
  configPath: string | null;
  providers: ProviderResolver;
  memory: MemoryBackend;
  tools: ToolRegistry;
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
  /** The workspace's agents (`[agents.*]`, always `main`), `main` first. */
  readonly agents: ReadonlyMap<string, ResolvedAgent>;
  /** Turns running or queued. */
  readonly activeTurns: number;
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
  config: Config;
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
  /** Clock of budgets and usage days (tests move it); Date.now by default. */
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

/** One agent's turns: its resolved configuration, the gate of its tools, and its memory. */
interface AgentView {
  agent: ResolvedAgent;
  gate: ToolGate;
  memory: () => MemoryBackend;
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
  const storage =
    options.storage ??
    (await openStorage(config.storage, workspace.dbPath, env, { idempotencyTtlMs: config.gateway.idempotency_ttl_s * 1000, responsesTtlMs: config.gateway.responses_ttl_days * 86_400_000 }));

  let tracer: Tracer = NOOP_TRACER;
  try {
    tracer = await openTracer(config.telemetry, env);
    let extensions: HostExtensions = {};
    let memory: MemoryBackend | null = null;
    const providers = createProviderResolver(config, {
      env,
      external: (name) => extensions.provider?.(name),
      configPath: loaded.path,
    });
    const readConfig = options.config
      ? async () => config
      : async () => (await loadConfigCached(workspace.configPath, workspace.cacheDir, env)).config;
    const sessions = storage.sessions;
    // Plugins serve every agent: they see the shared memory, never an agent's own.
    const agents = resolveAgents(config);
    const owners = new Set([...agents.values()].filter((agent) => agent.memoryScope === "own").map((agent) => agent.id));
    const sharedView = owners.size > 0 ? new ScopedMemory(() => memory!, MAIN_AGENT, false, owners) : null;
    const pluginMemory = () => (memory && sharedView ? sharedView : memory);
    const base: ExtendBase = { workspace, config, readConfig, memory: pluginMemory, providers, sessions, storage, env };
    const status: ExtensionsStatus = { state: options.extend ? "idle" : "ready" };
    let markLoaded!: () => void;
    const extensionsLoaded = new Promise<void>((resolve) => (markLoaded = resolve));
    if (!options.extend) markLoaded();
    const deferred = options.extend !== undefined && options.deferExtend === true && !needsExtensionsAtOpen(config);
    if (options.extend && !deferred) {
      status.state = "loading";
      extensions = await options.extend(base);
      status.state = "ready";
      markLoaded();
    }
    const pgMemory =
      config.memory.backend === "postgres" && storage.sql
        ? await openPgMemoryFor(storage.sql, config, providers)
        : null;
    memory = createMemoryBackend(config.memory.backend, storage, (name) => extensions.storage?.(name), pgMemory);
    const currentMemory = () => memory!;

    const skills = new SkillBook({ workspace: workspace.root, skills: config.skills, config, env });
    // a built-in that asks another tool (web_search through an MCP server) calls through the registry it sits in
    const callTool = (name: string, rawArguments: string, context: ToolContext) => tools.call(name, rawArguments, context);
    const tools: ToolRegistry = new ToolRegistry({
      builtins: await openBuiltinTools({
        config: config.tools,
        workspace: workspace.root,
        memory: currentMemory,
        callTool,
        readableDirs: () => skills.readableDirs(),
        sessions: () => storage.sessions,
        sessionLinks: () => storage.sessionLinks,
        ...(options.deliver ? { deliver: options.deliver(config.channels, env) } : {}),
        cron: () => ({ jobs: storage.cronJobs, state: storage.cron, now: options.now ?? Date.now }),
      }),
      disabled: config.tools.disabled,
    });
    if (skills.enabled) tools.addSource(skillToolSource(skills));
    for (const source of extensions.toolSources ?? []) tools.addSource(source);
    const approvals = new ApprovalBroker(() => storage.approvals);
    const gate = new ToolGate({ autonomy: config.autonomy, tools, broker: approvals, audit: () => storage.audit });
    const defaultRoute: ApprovalRoute = options.approvals ?? { kind: "refuse" };

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
        for (const source of extensions.toolSources ?? []) tools.addSource(source);
        status.state = "ready";
        markLoaded();
      })());

    const queue = new SessionQueue();
    // Resolved per publish: with a deferred `extend`, the plugin bus arrives after open.
    const events: EventPublisher = {
      publish: (topic, payload) => (extensions.events ?? nullPublisher).publish(topic, payload),
      wants: (topic) => (extensions.events ?? nullPublisher).wants?.(topic) ?? true,
    };
    const choose = (opts: { provider?: string; model?: string; agent?: string }) => {
      const named = agentRequest(opts);
      return resolveModelChoice(agentOf(agents, named.agent).config, { provider: opts.provider, model: named.model });
    };
    // What each agent's turns run on: the host's own pieces for an agent that changes nothing (`main` by default).
    const views = new Map<string, AgentView>();
    const viewOf = (id: string | undefined): AgentView => {
      const agent = agentOf(agents, id);
      let view = views.get(agent.id);
      if (!view) {
        const plain = agent.config === config && agent.toolsAllow === null && agent.toolsDeny.length === 0;
        const agentGate = plain
          ? gate
          : new ToolGate({ autonomy: agent.config.autonomy, tools: toolsForAgent(agent, tools), broker: approvals, audit: () => storage.audit });
        const scoped = owners.size > 0 ? new ScopedMemory(currentMemory, agent.id, agent.memoryScope === "own", owners) : null;
        view = { agent, gate: agentGate, memory: scoped ? () => scoped : currentMemory };
        views.set(agent.id, view);
      }
      return view;
    };
    const transcribe = configuredTranscriber(config, providers);
    const media = () => storage.media;
    const contextRatios = new ContextRatios();
    const recorder = new UsageRecorder(storage.usage);
    const usage = () => recorder;
    // Fail at start, not at the first turn, when the configured provider cannot be resolved.
    providers.resolve(choose({}).provider);

    // A helper's session is new and its own: no other process writes to it, so it takes no lease (a parent holding its
    // lease while its helper waited for another from the same pool could wait for ever once the pool is full).
    const helpers: HelperTurns = { run: (input) => run(input, undefined, false), links: () => storage.sessionLinks, now: options.now ?? Date.now };
    // A turn with its own history (the OpenAI API's) stores nothing, so it is not ordered behind the session's turns.
    const run = (asked: TurnInput, plan?: TurnPlan, leased = true): Promise<TurnResult> => {
      let view: AgentView;
      let input: TurnInput;
      try {
        const named = agentRequest(asked);
        view = viewOf(named.agent);
        // a copy with its getters kept as getters (the CLI's user id is looked up only when a middleware reads it)
        input = Object.defineProperties({}, Object.getOwnPropertyDescriptors(asked)) as TurnInput;
        input.agent = view.agent.id;
        input.model = named.model;
        // the agent's skills allowlist, unless the turn names its own
        if (input.skills === undefined && view.agent.skills) input.skills = view.agent.skills;
      } catch (error) {
        return Promise.reject(error);
      }
      // a session is one agent's conversation: another agent does not read it
      const checked = agents.size > 1 && !input.historyOverride;
      const turn = async () => {
        if (checked) await ownedBy(sessions, input.sessionId, view.agent.id);
        return executeTurn(
          {
            config: view.agent.config,
            workspace: workspace.root,
            sessions,
            providers,
            resolveModelChoice: (opts) => choose({ ...opts, agent: view.agent.id }),
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
            memory: view.memory,
            middleware: extensions.middleware ?? identityMiddleware,
            events,
            extensions,
            media,
            transcribe,
            contextRatios,
            usage,
            skills: async (filter) => (skills.enabled ? (await skills.section(filter)).text : ""),
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
      config,
      configPath: loaded.path,
      providers,
      memory: memory!,
      tools,
      approvals,
      storage,
      usage: recorder,
      env,
      sessions,
      events,
      skills,
      tracer,
      resolveModelChoice: choose,
      agents,
      get activeTurns() {
        return queue.active;
      },
      extensions: status,
      loadExtensions,
      extensionsLoaded,
      get plugins() {
        return extensions.plugins;
      },
      runTurn: (input, plan) => (status.state === "ready" ? run(input, plan) : loadExtensions().then(() => run(input, plan))),
      compactSession: (id, choice) => {
        // as the session's agent: its model, and its memory for what the summariser keeps
        const compact = async () => {
          const owner = agents.size > 1 ? (await sessions.get(id))?.agent : undefined;
          const view = viewOf(owner !== undefined && agents.has(owner) ? owner : undefined);
          const resolveAs = (opts: { provider?: string; model?: string }) => choose({ ...opts, agent: view.agent.id });
          const deps = { config: view.agent.config, sessions, tools, workspace: workspace.root, providers, resolveModelChoice: resolveAs, memory: view.memory };
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
