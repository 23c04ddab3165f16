import { REMOTE_DEFAULT_RPC_TIMEOUT_MS, REMOTE_PROTOCOL_VERSION } from "../limits.ts";
import { CancelMessageSchema } from "../protocol.ts";
import { toWireError } from "../wire-error.ts";
import { createDefaultChannel, type ChannelProblem, type WorkerChannel } from "./channel.ts";
import { buildDescriptor, HandlerRegistry, snapshotSurfaces, surfaceDelta } from "./descriptor.ts";
import { Dispatcher } from "./dispatch.ts";
import { getLaunchContext, markBootstrapped } from "./launch.ts";
import { buildRuntimeProxyApi, HostRpcClient } from "./runtime-proxy.ts";
import { Services } from "./services.ts";
import type { Plugin } from "./types.ts";

export interface BootstrapOptions {
  /** Transport override (tests). Default: the launcher's channel, else Worker, else stdio by env. */
  channel?: WorkerChannel;
  /** Passed to plugin.init(config, runtime). Default: the plugin's settings from the host. */
  initConfig?: Record<string, string>;
  /** Timeout of each runtime.* call to the host. */
  rpcTimeoutMs?: number;
  /** Called after `shutdown` has stopped the services (the launcher exits the worker/process here). */
  onShutdown?: () => void;
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
  const services = new Services();
  const client = new HostRpcClient(ch, options.rpcTimeoutMs ?? launch?.rpcTimeoutMs ?? REMOTE_DEFAULT_RPC_TIMEOUT_MS);
  const runtime = buildRuntimeProxyApi(client, services, String(plugin?.name ?? ""));
  const dispatcher = new Dispatcher(registry, services, runtime, ch);
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
    for (const s of plugin.services ?? []) services.register(s);
    const descriptor = buildDescriptor(plugin, registry, eventBase);
    ch.send({ type: "worker-announce-plugin", protocol: REMOTE_PROTOCOL_VERSION, descriptor });
    snapshot = snapshotSurfaces(plugin);
  } catch (error) {
    return fail(error);
  }

  try {
    if (typeof plugin.init === "function") {
      await plugin.init({ ...(options.initConfig ?? launch?.initConfig ?? {}) }, runtime);
    }
    const { delta, warnings } = surfaceDelta(plugin, snapshot);
    for (const message of warnings) ch.send({ type: "log", level: "warn", message });
    if (delta) {
      for (const s of delta.services ?? []) services.register(s);
      ch.send({ type: "worker-announce-dynamic", descriptor: buildDescriptor(delta, registry, eventBase) });
    }
  } catch (error) {
    return fail(error);
  }
  ch.send({ type: "init-complete" });
}
