import type { AgentIdentity } from "../agent.ts";
import { REMOTE_DEFAULT_RPC_TIMEOUT_MS, REMOTE_PROTOCOL_VERSION } from "../limits.ts";
import { OutputBudget, PLUGIN_OUTPUT_LIMITS } from "../output-budget.ts";
import { CancelMessageSchema } from "../protocol/index.ts";
import { toWireError } from "../wire-error.ts";
import { createDefaultChannel, type ChannelProblem, type WorkerChannel } from "./channel.ts";
import { buildDescriptor, HandlerRegistry, snapshotSurfaces, surfaceDelta } from "./descriptor.ts";
import { Dispatcher } from "./dispatch.ts";
import { getLaunchContext, markBootstrapped } from "./launch.ts";
import { buildRuntimeProxyApi, HostRpcClient } from "./runtime-proxy.ts";
import { HostLogLevels, type HostLogLevel } from "./runtime-logger.ts";
import { Services } from "./services.ts";
import { SettingsView } from "./settings-view.ts";
import type { JsonValue, Plugin, ServiceClass } from "./types.ts";

export interface BootstrapOptions {
  /** Transport override (tests). Default: the launcher's channel, else Worker, else stdio by env. */
  channel?: WorkerChannel;
  /** Passed to plugin.init(config, runtime). Default: the plugin's settings from the host. */
  initConfig?: Record<string, JsonValue>;
  /** Timeout of each runtime.* call to the host. */
  rpcTimeoutMs?: number;
  /** Called after `shutdown` has stopped the services (the launcher exits the worker/process here). */
  onShutdown?: () => void;
  /** runtime.agentId / character / getConversationLength. Default: the launcher's, else prx's default `[agent]`. */
  agent?: AgentIdentity;
  /** Lowest runtime.logger level sent to the host. Default: the launcher's, else PRX_LOG, else "warn". */
  logLevel?: HostLogLevel;
  /**
   * Persisted settings for runtime.getSetting. Default: under the launcher they are read from the host (runtime
   * `getSettings`) before init; a channel given by hand without them starts with none.
   */
  persistedSettings?: Record<string, JsonValue>;
}

function envLogLevel(): HostLogLevel {
  const level = process.env.PRX_LOG as HostLogLevel | undefined;
  return level && HostLogLevels.includes(level) ? level : "warn";
}

function unreachableNote(service: ServiceClass): string {
  return (
    `service ${service.serviceType} declares no static rpcMethods: the host can call none of its methods ` +
    `(an empty allowlist); it starts with the plugin and the plugin reaches it with runtime.getService("${service.serviceType}")`
  );
}

/** Counters of input the worker refused, for tests and diagnostics. */
export interface WorkerStats {
  malformed: number;
  oversize: number;
}

/**
 * Announce the plugin's surfaces, run plugin.init, report init-time additions, then stay in dispatch mode.
 * Resolves after init-complete was sent; rejects (after sending init-failed) when announce or init fails.
 */
export async function bootstrap(plugin: Plugin, options: BootstrapOptions = {}): Promise<void> {
  markBootstrapped();
  const launch = getLaunchContext();
  const stats: WorkerStats = { malformed: 0, oversize: 0 };
  let channel: WorkerChannel | undefined = options.channel ?? launch?.channel;
  const problem = (p: ChannelProblem) => {
    stats[p.kind] += 1;
    const line = `[prx remote plugin ${plugin?.name ?? "?"}] refused ${p.kind} message from host: ${p.detail}`;
    process.stderr.write(line + "\n");
    try {
      channel?.send({ type: "log", level: "error", message: line, fields: { kind: p.kind, count: stats[p.kind] } });
    } catch {
      // the report itself could not be sent; it is already on stderr
    }
  };
  if (!channel) channel = createDefaultChannel(problem, () => process.exit(0));
  else launch?.setProblemSink?.(problem);
  const ch = channel;

  const registry = new HandlerRegistry();
  const services = new Services((serviceType) => ch.send({ type: "service-started", serviceType }));
  const client = new HostRpcClient(ch, options.rpcTimeoutMs ?? launch?.rpcTimeoutMs ?? REMOTE_DEFAULT_RPC_TIMEOUT_MS);
  const initConfig = { ...(options.initConfig ?? launch?.initConfig ?? {}) };
  // the launcher always passes the agent; only a bare bootstrap() (tests, a host of one's own) loads the defaults
  const agent = options.agent ?? launch?.agent ?? (await import("../agent-default.ts")).defaultAgentIdentity();
  const settings = new SettingsView(initConfig);
  // runtime.logger lines share one budget per plugin, so a logging loop cannot flood the host with messages
  const { lines, bytes, intervalMs } = PLUGIN_OUTPUT_LIMITS;
  const logBudget = new OutputBudget(PLUGIN_OUTPUT_LIMITS, (dropped) =>
    ch.send({
      type: "log",
      level: "warn",
      message: `${dropped} runtime.logger lines dropped: over ${lines} lines or ${bytes} bytes in ${intervalMs} ms`,
    }),
  );
  const runtime = buildRuntimeProxyApi({
    client,
    services,
    plugin: plugin && typeof plugin === "object" ? plugin : { name: "" },
    agent,
    settings,
    admitLog: () => logBudget.take(),
    sendLog: (line) => {
      logBudget.charge(line.message.length);
      ch.send(line);
    },
    logLevel: options.logLevel ?? launch?.logLevel ?? envLogLevel(),
  });
  const dispatcher = new Dispatcher(registry, services, runtime, ch, launch?.afterCall, launch?.beforeCall);
  let shuttingDown = false;

  ch.onMessage((raw) => {
    if (!raw || typeof raw !== "object") return problem({ kind: "malformed", detail: "message is not an object" });
    const type = (raw as { type?: unknown }).type;
    if (type === "worker-rpc") void dispatcher.dispatch(raw);
    else if (type === "host-rpc-result") client.handle(raw as { type: unknown });
    else if (type === "cancel") {
      const parsed = CancelMessageSchema.safeParse(raw);
      if (parsed.success) dispatcher.cancel(parsed.data.requestId, parsed.data.reason);
      else problem({ kind: "malformed", detail: "invalid cancel message" });
    } else if (type === "shutdown") {
      if (shuttingDown) return;
      shuttingDown = true;
      void services.stopAll(runtime).then((errors) => {
        for (const e of errors) ch.send({ type: "log", level: "warn", message: `service stop failed: ${e}` });
        client.failAll("worker shut down");
        ch.close();
        (options.onShutdown ?? launch?.onShutdown)?.();
      });
    } else problem({ kind: "malformed", detail: `unknown message type ${JSON.stringify(type)}` });
  });

  const fail = (error: unknown): never => {
    ch.send({ type: "init-failed", error: toWireError(error) });
    throw error;
  };

  let snapshot;
  const eventBase = new Map<string, number>();
  try {
    if (!plugin || typeof plugin !== "object" || typeof plugin.name !== "string" || !plugin.name) {
      throw new TypeError("bootstrap(plugin): plugin must be an object with a non-empty name");
    }
    const descriptor = buildDescriptor(plugin, registry, eventBase);
    ch.send({ type: "worker-announce-plugin", protocol: REMOTE_PROTOCOL_VERSION, descriptor });
    registerServices(plugin.services);
    snapshot = snapshotSurfaces(plugin);
  } catch (error) {
    return fail(error);
  }

  try {
    const persisted = options.persistedSettings ?? (launch ? await client.call("getSettings", {}) : {});
    settings.load((persisted ?? {}) as Record<string, JsonValue>);
    if (typeof plugin.init === "function") await plugin.init(initConfigOf(initConfig), runtime);
    const { delta, warnings } = surfaceDelta(plugin, snapshot);
    for (const message of warnings) ch.send({ type: "log", level: "warn", message });
    if (delta) {
      const dynamic = buildDescriptor(delta, registry, eventBase);
      ch.send({ type: "worker-announce-dynamic", descriptor: dynamic });
      registerServices(delta.services);
    }
    // elizaOS starts services after the plugins' init; those the host cannot call would otherwise never start
    await services.startUnreachable(runtime);
  } catch (error) {
    return fail(error);
  }
  ch.send({ type: "init-complete" });

  function registerServices(list: ServiceClass[] | undefined): void {
    for (const s of list ?? []) {
      services.register(s);
      if (s.rpcMethods === undefined) ch.send({ type: "log", level: "debug", message: unreachableNote(s) });
    }
  }
}

/**
 * What plugin.init(config) gets: the settings, tables and arrays as their JSON text. elizaOS passes init a record of
 * strings; a plugin reads structured settings with runtime.getSetting, which returns them as values.
 */
function initConfigOf(settings: Record<string, JsonValue>): Record<string, string> {
  const config: Record<string, string> = {};
  for (const [key, value] of Object.entries(settings)) {
    if (value !== null) config[key] = typeof value === "string" ? value : JSON.stringify(value);
  }
  return config;
}
