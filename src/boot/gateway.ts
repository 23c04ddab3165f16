import { ConfigReloader, type ConfigApplier } from "../agent/config-reload.ts";
import { openAgentHost, type AgentHost } from "../agent/host.ts";
import { lazyChannelDeliverer } from "../channels/deliver-lazy.ts";
import type { McpGatewayPort } from "../contracts/mcp.ts";
import { errorMessage } from "../core/errors.ts";
import { rerunOnRequest } from "../core/rerun.ts";
import { CRON_TOOL_POLL_MS } from "../tools/builtins/cron-limits.ts";
import { createLogger } from "../core/logger.ts";
import { openGatewayFileLog, type GatewayFileLog } from "../gateway/file-log.ts";
import { pluginHealthCheck } from "../gateway/plugin-health.ts";
import { clearPresence, newControlToken, writePresence } from "../gateway/presence-write.ts";
import { startGateway, type GatewayServer } from "../gateway/server.ts";
import type { RedisGatewayShared } from "../gateway/shared/index.ts";
import type { GatewayMount, HealthCheck } from "../gateway/types.ts";
import { mcpClientExtension, type McpClientExtension } from "../mcp/extension.ts";
import { watchConfigFile, type ConfigWatch } from "../config/watch.ts";
import { fileStamp } from "../core/file-stamp.ts";
import { firstAnswer } from "./answer-first.ts";
import { gatewayChannels, type GatewayChannels } from "./gateway-channels.ts";
import { healthBeforeApp } from "./health-before-app.ts";
import { pluginsPresent } from "./plugins-present.ts";
import type { StoreWatch } from "../storage/types.ts";

/**
 * `prx gateway`'s start, in this order: the agent host (workspace, config, storage), its log file, the state shared
 * with other replicas, the channel supervisor (when config.toml has `[channels]`; else with its first use:
 * gateway-channels.ts), the gateway (it listens, answers /health, then loads and builds its
 * app: health-before-app.ts), then the optional parts that may arrive after it serves: the plugin runtime, then,
 * once the gateway has answered its first request or a little later (answer-first.ts), the channel processes, the
 * cron runner and the config watch. Each phase's time is logged at debug level.
 */
export const GATEWAY_PHASES = ["agent host", "log file", "shared state", "channels", "gateway", "plugins", "channel processes"] as const;
export type GatewayPhase = (typeof GATEWAY_PHASES)[number];

export interface GatewayBootOptions {
  workspace: string | undefined;
  /** --host and --port; default the config's. */
  hostname: string | undefined;
  port: number | undefined;
  version: string;
}

export interface BootedGateway {
  server: GatewayServer;
  /** Once the server has closed: stop the channels, close the host, the shared state and the log file. */
  close(): Promise<void>;
}

type SharedState = RedisGatewayShared;

const log = createLogger("boot");

async function phase<T>(name: GatewayPhase, run: () => T | Promise<T>): Promise<T> {
  const started = performance.now();
  const value = await run();
  log.debug(`gateway ${name}: ${(performance.now() - started).toFixed(1)} ms`);
  return value;
}

export async function bootGateway(options: GatewayBootOptions): Promise<BootedGateway> {
  // MCP servers marked eager start with the plugins; the others on first use.
  const mcp = mcpClientExtension({ eager: true, clientVersion: options.version });
  // The plugin runtime loads once the gateway listens (turns wait for it; /health says "starting").
  const host = await phase("agent host", () =>
    openAgentHost({
      workspace: options.workspace,
      extend: mcp.wrap(async (base) => (await import("../agent/plugin-extensions.ts")).pluginExtensions(base)),
      deferExtend: true,
      // a tool call that needs approval waits for an answer through /api/approvals, the console or a channel's owner
      approvals: { kind: "ask" },
      deliver: lazyChannelDeliverer,
    }),
  );
  // config.toml as the host has just read it: the config watch begins after the first answer and applies an edit
  // made in between
  const configRead = fileStamp(host.workspace.configPath);
  let fileLog: GatewayFileLog | undefined;
  let shared: SharedState | null = null;
  let channels: GatewayChannels;
  let server: GatewayServer;
  let reloader!: ConfigReloader;
  let first!: ReturnType<typeof firstAnswer>;
  const atRest = pluginsAtRest(host);
  try {
    fileLog = await phase("log file", () => openGatewayFileLog(host.workspace.logsDir));
    shared = await phase("shared state", () => sharedState(host));
    channels = await phase("channels", () => gatewayChannels(host));
    const routeGroups = channels;
    const logFile = fileLog;
    reloader = new ConfigReloader({ host, path: host.workspace.configPath, appliers: liveAppliers(host, mcp, channels) });
    const configReload = reloader;
    // route modules: loaded with the app, after listening
    const mounts = async (): Promise<GatewayMount[]> => {
      const [{ pluginGatewayMounts }, { mcpRoutes }, { approvalRoutes }, { skillsRoutes }, { cronJobRoutes }, { logRoutes }, { configReloadRoutes }] =
        await Promise.all([
        import("../gateway/routes/plugins.ts"),
        import("../gateway/routes/mcp.ts"),
        import("../gateway/routes/approvals.ts"),
        import("../gateway/routes/skills.ts"),
        import("../gateway/routes/cron-jobs.ts"),
        import("../gateway/routes/logs.ts"),
        import("../gateway/routes/config-reload.ts"),
      ]);
      return [
        configReloadRoutes(configReload),
        approvalRoutes({ broker: host.approvals, audit: () => host.storage.audit }),
        skillsRoutes(host.skills),
        cronJobRoutes({ jobs: () => host.storage.cronJobs, state: () => host.storage.cron, sessions: () => host.storage.sessions }),
        logRoutes(logFile.file.path),
        ...pluginGatewayMounts(host),
        ...(await routeGroups.mounts()),
        mcpRoutes(mcpGatewayPort(host, mcp, options.version), () => host.config.gateway.max_body_bytes),
      ];
    };
    first = firstAnswer(fileLog.accessLog);
    const accessLog = first.accessLog;
    const replicas = shared;
    const controlToken = newControlToken();
    server = await phase("gateway", () =>
      startGateway({
        host,
        hostname: options.hostname,
        ...(options.port === undefined ? {} : { port: options.port }),
        version: options.version,
        mounts,
        checks: { plugins: pluginHealthCheck(host, { atRest }), config: () => configReload.check(), ...channels.checks, ...scaleOutChecks(host, replicas) },
        accessLog,
        beforeApp: healthBeforeApp,
        front: channels.front,
        controlToken,
        ...(replicas ? { shared: replicas } : {}),
      }),
    );
    // the commands run beside it (prx status, prx plugins reload, ...) find it here
    const started_at = new Date().toISOString();
    writePresence(host.workspace, { pid: process.pid, url: server.url, version: options.version, started_at, control_token: controlToken });
  } catch (error) {
    shared?.close();
    await host.close();
    await fileLog?.close();
    throw error;
  }
  if (!atRest) {
    await phase("plugins", () => {
      host.loadExtensions().catch((error: unknown) =>
        server.context.logger.error(`plugins did not load; /health reports 503, turns fail: ${errorMessage(error)}`),
      );
    });
  }
  await first.answered();
  const cron = await phase("channel processes", async () => {
    channels.start();
    void host.extensionsLoaded.then(() => channels.followReloads());
    return startGatewayCron(host);
  });
  const context = server.context;
  reloader.add({
    name: "model table",
    apply: async (next, changes) => {
      if (!changes.changed.some((key) => key.startsWith("providers.") || key === "default_provider" || key === "default_model" || key === "gateway.model_aliases")) return [];
      const { buildModelTable } = await import("../gateway/openai/models.ts");
      context.models = buildModelTable(next, host.resolveModelChoice({}), () => host.providers.pluginNames?.() ?? []);
      return [];
    },
  });
  // an edit of config.toml is applied (or refused and reported) without a restart; one made since the host read it,
  // before the watch began, is applied now
  const watch: ConfigWatch | null = watchConfigFile(host.workspace.configPath, () => void reloader.reload());
  if (!watch) log.warn(`cannot watch ${host.workspace.configPath}; apply edits with POST /api/config/reload or prx config set`);
  if (fileStamp(host.workspace.configPath) !== configRead) void reloader.reload();
  const openedLog = fileLog;
  const replicas = shared;
  return {
    server,
    async close() {
      watch?.close();
      clearPresence(host.workspace, process.pid);
      await cron.stop();
      await channels.stop();
      await host.close();
      replicas?.close();
      await openedLog.close();
    },
  };
}

/** What a reload applies beyond the agent host: MCP servers, plugin grants and config, channels. */
function liveAppliers(host: AgentHost, mcp: McpClientExtension, channels: GatewayChannels): ConfigApplier[] {
  const changedUnder = (keys: string[], prefix: string) => keys.filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length));
  return [
    {
      name: "MCP servers",
      apply: async (next, changes) => {
        if (changedUnder(changes.changed, "mcp.servers.").length === 0) return [];
        const done = await mcp.reconfigure(next.mcp, host);
        return [
          ...done.added.map((name) => `MCP server ${name} added`),
          ...done.removed.map((name) => `MCP server ${name} removed`),
          ...done.changed.map((name) => `MCP server ${name} restarted`),
        ];
      },
    },
    {
      name: "plugins",
      apply: async (_next, changes) => {
        const runtime = host.plugins?.runtime;
        const names = changedUnder(changes.changed, "plugins.");
        if (!runtime || names.length === 0) return [];
        // the runtime reads config.toml again: the plugins whose grants or config changed are rebuilt
        const generation = await runtime.reload(undefined, { force: true });
        return [`plugins reloaded (generation ${generation}) for ${names.join(", ")}`];
      },
    },
    { name: "channels", apply: (next, changes) => channels.reconfigure(next, changes) },
  ];
}

/**
 * The cron tool's jobs of sessions no channel serves (the HTTP API, chat): the gateway runs them into their sessions.
 * A channel's jobs are its process's (src/channels/participant.ts), which delivers them to their chats. The runner
 * and its modules (the scheduler, the job plans) load with the first stored job: until then the job table is counted
 * when the store tells of a write by any process (CronJobStore.watch: PostgreSQL's notices), or every
 * CRON_TOOL_POLL_MS where it cannot, as often as the runner reads it, so a job added by any process is picked up as
 * soon. A count that failed is tried again after CRON_TOOL_POLL_MS.
 */
async function startGatewayCron(host: AgentHost): Promise<{ stop(): Promise<void> }> {
  let runner: Promise<{ stop(): Promise<void> } | undefined> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let watch: StoreWatch | null = null;
  const load = async () => {
    const { CronJobRunner } = await import("../agent/cron/index.ts");
    const channelNames = new Set(Object.keys(host.config.channels));
    const started = new CronJobRunner({
      jobs: host.storage.cronJobs,
      state: host.storage.cron,
      sessions: host.sessions,
      inbox: host.storage.channels,
      runTurn: (input) => host.runTurn(input),
      accepts: (row) => !channelNames.has(row.channel),
    });
    await started.start();
    return started;
  };
  const later = (): void => {
    if (!stopped && !timer) timer = setTimeout(() => ((timer = undefined), void check()), CRON_TOOL_POLL_MS);
  };
  const count = async (): Promise<void> => {
    let jobs = 0;
    try {
      jobs = await host.storage.cronJobs.count();
    } catch (error) {
      log.warn(`cron: cannot count the stored jobs (tried again in ${CRON_TOOL_POLL_MS} ms): ${errorMessage(error)}`);
      return later();
    }
    if (stopped || runner) return;
    if (jobs > 0) {
      runner = load().catch((error: unknown) => {
        log.error(`cron: the job runner did not start, stored jobs do not run until a restart: ${errorMessage(error)}`);
        return undefined;
      });
      // the runner reads the jobs from now on
      const done = watch;
      watch = null;
      void done?.close().catch((error: unknown) => log.warn(`cron: unlisten failed: ${errorMessage(error)}`));
    } else if (!watch) later();
  };
  // one count at a time; a notice during a count asks for one more (the count in flight may predate its write)
  const check = rerunOnRequest(async () => {
    if (!stopped && !runner) await count();
  });
  if (host.storage.cronJobs.watch) {
    try {
      watch = await host.storage.cronJobs.watch(() => void check());
    } catch (error) {
      log.warn(`cron: no change notices for the stored jobs, counted every ${CRON_TOOL_POLL_MS} ms: ${errorMessage(error)}`);
    }
  }
  await check();
  await runner;
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await watch?.close();
      await (await runner)?.stop();
    },
  };
}

/**
 * No plugin, no hooks.json, no MCP server to start with the gateway and no other replica to follow: the plugin runtime
 * starts with the first turn or plugin request, and /health says "at rest" meanwhile (a kept start-up trick: tricks.ts).
 */
function pluginsAtRest(host: AgentHost): boolean {
  const eagerMcp = Object.values(host.config.mcp.servers).some((server) => server.eager);
  return host.config.bus.backend === "local" && !eagerMcp && !pluginsPresent(host.workspace);
}

/**
 * /health of a replica: PostgreSQL and Redis answer (a load balancer takes a replica that cannot reach them out).
 * Each check is bounded by HEALTH_CHECK_TIMEOUT_MS (readiness.ts); Redis's detail says how the link and the events
 * between replicas are doing.
 */
function scaleOutChecks(host: AgentHost, shared: SharedState | null): Record<string, () => Promise<HealthCheck>> {
  const checks: Record<string, () => Promise<HealthCheck>> = {};
  const sql = host.storage.sql;
  if (sql) checks.storage = reachable("postgres", () => pingPostgres(sql));
  if (shared) {
    const redis = reachable("redis", () => shared.ping());
    checks.bus = async () => {
      const check = await redis();
      const link = shared.link();
      const fabric = host.plugins?.runtime.fabricStats;
      const events = fabric ? `; events between replicas: ${fabric.forwarded} forwarded, ${fabric.dropped} dropped` : "";
      const state = check.ok ? `redis up, ${link.reconnects} reconnection(s)` : `${check.detail}`;
      return { ok: check.ok, detail: `${state}${events}` };
    };
  }
  return checks;
}

/**
 * SELECT 1, once more when the pooled connection it took was one PostgreSQL closed (a restart leaves each idle
 * connection of the pool dead; the driver drops it on its first failure), so /health is 200 again as soon as
 * PostgreSQL is back.
 */
async function pingPostgres(sql: NonNullable<AgentHost["storage"]["sql"]>): Promise<void> {
  try {
    await sql.unsafe("SELECT 1");
  } catch (error) {
    if ((error as { code?: string }).code !== "ERR_POSTGRES_CONNECTION_CLOSED") throw error;
    await sql.unsafe("SELECT 1");
  }
}

function reachable(what: string, probe: () => Promise<unknown>): () => Promise<HealthCheck> {
  return async () => {
    try {
      await probe();
      return { ok: true };
    } catch (error) {
      return { ok: false, detail: `${what} unreachable: ${errorMessage(error)}` };
    }
  };
}

/** `[bus] backend = "redis"`: rate limits and pairing lockouts are shared by every replica. */
async function sharedState(host: AgentHost): Promise<SharedState | null> {
  const bus = host.config.bus;
  if (bus.backend !== "redis") return null;
  const { urlFromEnv } = await import("../storage/index.ts");
  const { redisGatewayShared } = await import("../gateway/shared/index.ts");
  const url = urlFromEnv(bus.url_env, host.env, '[bus] backend = "redis"');
  return redisGatewayShared(url, bus.prefix, createLogger("bus"));
}

/** The MCP routes' port, built (with the MCP modules) on the first request that needs it. */
function mcpGatewayPort(host: AgentHost, mcp: McpClientExtension, version: string): () => Promise<McpGatewayPort> {
  let port: Promise<McpGatewayPort> | undefined;
  return () =>
    (port ??= import("../mcp/gateway-port.ts").then((m) => m.createMcpGatewayPort(host, mcp, { version, logger: createLogger("mcp.serve") })));
}
