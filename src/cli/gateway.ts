import { version } from "../../package.json" with { type: "json" };
import type { AgentHost } from "../agent/host.ts";
import type { McpGatewayPort } from "../contracts/mcp.ts";
import { errorMessage } from "../core/errors.ts";
import type { GatewayFileLog } from "../gateway/file-log.ts";
import type { GatewayServer } from "../gateway/server.ts";
import type { McpClientExtension } from "../mcp/extension.ts";
import type { GatewayChannels } from "./gateway-channels.ts";
import type { EarlyGateway } from "./gateway-listen.ts";
import { parseCommand, unknownName, usageError } from "./args.ts";
import { hoistGlobalOptions } from "./global-options.ts";
import { pluginsPresent } from "./plugins-present.ts";

const USAGE = `Usage: prx gateway [--host H] [--port P]      run the HTTP gateway (default 127.0.0.1:16830)
       prx gateway token create [--name N] [--json]   print a new bearer token (shown once)
       prx gateway token list [--json]                list tokens (never the tokens themselves)
       prx gateway token revoke <id>                  revoke a token
`;

const TOKEN_COMMANDS = ["create", "list", "revoke"] as const;

/**
 * How long after listening the gateway opens its agent host and routes unless a request needs them sooner: the first
 * health checks are answered at once ("starting"), and a turn or API call opens them immediately.
 */
export const HOST_OPEN_DELAY_MS = 25;
/** How long after the gateway serves it starts its plugin runtime unless a request needs it sooner (see pluginsAtRest). */
export const PLUGINS_LOAD_DELAY_MS = 25;

export async function gatewayCommand(given: string[], globals: { workspace?: string }): Promise<number> {
  const argv = hoistGlobalOptions(given, "prx gateway"); // `prx gateway -w DIR token create`
  if (argv[0] === "token") return tokenCommand(argv.slice(1), globals);
  const { values, positionals } = parseCommand("prx gateway", argv, {
    host: { type: "string" },
    port: { type: "string" },
  });
  if (values.help) {
    console.log(USAGE.trimEnd());
    return 0;
  }
  if (positionals.length > 0) throw unknownName("subcommand", positionals[0]!, ["token"], "prx gateway");
  const port = values.port === undefined ? undefined : parsePort(values.port);

  // Listen first (workspace, cached config, database), then build the rest: see gateway/early.ts.
  // a signal while the gateway starts stops it once it is built (startGateway then owns the signals)
  let signalled = false;
  const hold = () => void (signalled = true);
  process.on("SIGINT", hold).on("SIGTERM", hold);
  let running: Running;
  let early: EarlyGateway | undefined;
  try {
    early = await (await import("./gateway-listen.ts")).listenFirst(values.workspace ?? globals.workspace, values.host, port);
    await early.listener.needed(HOST_OPEN_DELAY_MS);
    running = await openAndServe(early, values.host);
  } catch (error) {
    await early?.listener.fail(error);
    await early?.storage.close();
    throw error;
  } finally {
    process.off("SIGINT", hold).off("SIGTERM", hold);
  }
  const { host, server, channels, fileLog, shared, pluginsAtRest } = running;
  if (signalled) void server.stop();
  channels.start();
  void host.extensionsLoaded.then(() => channels.followReloads());
  // Requests that need plugins (turns, /api/plugins) load them at once; otherwise they load shortly after
  // listening, so the first health checks are answered without waiting behind the plugin start. With nothing to load
  // they wait for that first use.
  const loadLater = pluginsAtRest
    ? undefined
    : setTimeout(() => {
        if (server.context.turns.draining) return;
        host.loadExtensions().catch((error: unknown) =>
          server.context.logger.error(`plugins did not load; /health reports 503, turns fail: ${errorMessage(error)}`),
        );
      }, PLUGINS_LOAD_DELAY_MS);
  await server.closed;
  clearTimeout(loadLater);
  await channels.stop();
  await host.close();
  await host.storage.close();
  shared?.close();
  await fileLog.close();
  return 0;
}

interface Running {
  host: AgentHost;
  server: GatewayServer;
  channels: GatewayChannels;
  fileLog: GatewayFileLog;
  /** Rate limits, pairing and the event fabric shared with other replicas (`[bus] backend = "redis"`). */
  shared: Awaited<ReturnType<typeof sharedState>>;
  /** Nothing for the plugin runtime to do until first used: see pluginsAtRest. */
  pluginsAtRest: boolean;
}

/**
 * No plugin, no hooks.json, no MCP server to start with the gateway and no other replica to follow: the plugin runtime
 * (its modules, zod and the manifest parser: ~2 MB of an idle gateway) starts with the first turn or plugin request.
 */
function pluginsAtRest(host: AgentHost): boolean {
  const eagerMcp = Object.values(host.config.mcp.servers).some((server) => server.eager);
  return host.config.bus.backend === "local" && !eagerMcp && !pluginsPresent(host.workspace);
}

/** The agent host, the file log, the channels and the full route table, served by the early listener. */
async function openAndServe(early: EarlyGateway, hostname: string | undefined): Promise<Running> {
  // Between the steps below the event loop answers what arrived meanwhile (an early /health, from the listener).
  const servePending = () => new Promise<void>((resolve) => setImmediate(resolve));
  const { openAgentHost } = await import("../agent/host.ts");
  await servePending();
  // MCP servers marked eager start with the plugins; the others on first use.
  const mcp = (await import("../mcp/extension.ts")).mcpClientExtension({ eager: true, clientVersion: version });
  // The plugin runtime (and its modules) load once the gateway serves: /health answers meanwhile ("starting") and
  // turns wait for it.
  const host = await openAgentHost({
    workspace: early.workspace,
    storage: early.storage,
    extend: mcp.wrap(async (base) => (await import("../agent/plugin-extensions.ts")).pluginExtensions(base)),
    deferExtend: true,
  });
  const fileLog = (await import("../gateway/file-log.ts")).openGatewayFileLog(host.workspace.logsDir);
  let shared: Awaited<ReturnType<typeof sharedState>> = null;
  try {
    await servePending();
    shared = await sharedState(host);
    const channels = await (await import("./gateway-channels.ts")).gatewayChannels(host);
    await servePending();
    const { startGateway } = await import("../gateway/server.ts");
    await servePending();
    const { pluginHealthCheck } = await import("../gateway/plugin-health.ts");
    const atRest = pluginsAtRest(host);
    const mcpPort = mcpGatewayPort(host, mcp);
    const mounts = async () => {
      const { pluginGatewayMounts } = await import("../gateway/routes/plugins.ts");
      const { mcpRoutes } = await import("../gateway/routes/mcp.ts");
      return [...pluginGatewayMounts(host), ...(await channels.mounts()), mcpRoutes(mcpPort, host.config.gateway.max_body_bytes)];
    };
    const server = await startGateway({
      host,
      hostname,
      version,
      mounts,
      checks: { plugins: pluginHealthCheck(host, { atRest }), ...channels.checks, ...scaleOutChecks(host, shared) },
      accessLog: fileLog.accessLog,
      listener: early.listener,
      ...(shared ? { shared } : {}),
    });
    return { host, server, channels, fileLog, shared, pluginsAtRest: atRest };
  } catch (error) {
    shared?.close();
    await host.close();
    await fileLog.close();
    throw error;
  }
}

/** /health of a replica: PostgreSQL and Redis answer (a load balancer takes a replica that cannot reach them out). */
function scaleOutChecks(host: AgentHost, shared: Awaited<ReturnType<typeof sharedState>>) {
  const checks: Record<string, () => Promise<{ ok: boolean; detail?: string }>> = {};
  const sql = host.storage.sql;
  if (sql) {
    checks.storage = async () => {
      try {
        await sql.unsafe("SELECT 1");
        return { ok: true };
      } catch (error) {
        return { ok: false, detail: `postgres unreachable: ${errorMessage(error)}` };
      }
    };
  }
  if (shared) {
    checks.bus = async () => {
      try {
        await shared.ping();
        return { ok: true };
      } catch (error) {
        return { ok: false, detail: `redis unreachable: ${errorMessage(error)}` };
      }
    };
  }
  return checks;
}

/** `[bus] backend = "redis"`: rate limits and the pairing code with its lockouts are shared by every replica. */
async function sharedState(host: AgentHost) {
  const bus = host.config.bus;
  if (bus.backend !== "redis") return null;
  const { urlFromEnv } = await import("../storage/index.ts");
  const { redisGatewayShared } = await import("../gateway/shared/index.ts");
  const url = urlFromEnv(bus.url_env, host.env, '[bus] backend = "redis"');
  return redisGatewayShared(url, bus.prefix, host.config.gateway.pairing_code_ttl_s * 1000);
}

/** The MCP routes' port, built (with the MCP modules) on the first request that needs it. */
function mcpGatewayPort(host: AgentHost, mcp: McpClientExtension): () => Promise<McpGatewayPort> {
  let port: Promise<McpGatewayPort> | undefined;
  return () =>
    (port ??= import("../mcp/gateway-port.ts").then(async (m) =>
      m.createMcpGatewayPort(host, mcp, { version, logger: (await import("../core/logger.ts")).createLogger("mcp.serve") }),
    ));
}

function parsePort(raw: string): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65_535)
    throw usageError(`prx gateway: --port must be an integer 0-65535, got '${raw}'`);
  return port;
}

async function tokenCommand(argv: string[], globals: { workspace?: string }): Promise<number> {
  (await import("./stdout.ts")).exitQuietlyOnClosedStdout();
  const { values, positionals } = parseCommand("prx gateway token", argv, {
    name: { type: "string" },
    json: { type: "boolean" },
  });
  const [sub, ...rest] = positionals;
  if (values.help || sub === undefined) {
    (values.help ? process.stdout : process.stderr).write(USAGE);
    return values.help ? 0 : 2;
  }
  if (!(TOKEN_COMMANDS as readonly string[]).includes(sub))
    throw unknownName("subcommand", sub, TOKEN_COMMANDS, "prx gateway token");

  // Offline: only the workspace database, no providers or plugins.
  const { openWorkspace } = await import("../core/workspace.ts");
  const { loadConfig } = await import("../config/loader.ts");
  const { openStorage } = await import("../storage/index.ts");
  const workspace = openWorkspace(values.workspace ?? globals.workspace);
  // The tokens every replica checks: the workspace database, or the PostgreSQL of [storage].
  const storage = await openStorage(loadConfig(workspace.configPath).config.storage, workspace.dbPath, process.env);
  const store = storage.tokens;
  try {
    switch (sub) {
      case "create": {
        if (rest.length) throw usageError(`prx gateway token create: unexpected argument '${rest[0]}'`);
        const { token, record } = await store.create(values.name ?? `cli ${new Date().toISOString().slice(0, 19)}`);
        if (values.json) process.stdout.write(JSON.stringify({ ...record, token }) + "\n");
        else {
          process.stdout.write(token + "\n");
          process.stderr.write(`created token ${record.id} ("${record.name}"); it is shown only once\n`);
        }
        return 0;
      }
      case "list": {
        const tokens = await store.list();
        if (values.json) process.stdout.write(JSON.stringify(tokens) + "\n");
        else if (tokens.length === 0)
          process.stdout.write("no gateway tokens (pair with the gateway, or `prx gateway token create`)\n");
        else {
          for (const t of tokens) {
            const state = t.revoked ? "revoked" : "active";
            process.stdout.write(
              `${t.id}  ${state.padEnd(7)}  created ${t.created_at}  last used ${t.last_used_at ?? "never"}  ${t.name}\n`,
            );
          }
        }
        return 0;
      }
      default: {
        const id = rest[0];
        if (!id || rest.length > 1)
          throw usageError("prx gateway token revoke: expected exactly one token id (see `prx gateway token list`)");
        const revoked = await store.revoke(id);
        process.stdout.write(revoked ? `revoked ${id}\n` : `${id} was already revoked\n`);
        return 0;
      }
    }
  } finally {
    await storage.close();
  }
}
