import type { PluginDescriptor } from "../protocol/index.ts";

/**
 * Why a plugin must keep running from load to shutdown, or null when it may start on demand and stop when idle.
 * A service without `rpcMethods` starts with the plugin (after init) and does its own work unprompted (a client
 * connection, a poller): nothing the host calls would start it, so such a plugin stays running. Everything else the
 * descriptor announces (actions, providers, evaluators, models, routes, event handlers, services with rpcMethods) is
 * reached through a call, which starts the plugin.
 */
export function keepsRunning(descriptor: PluginDescriptor, idleStopMs: number): string | null {
  if (idleStopMs === 0) return "[remote] idle_stop_ms = 0";
  const background = (descriptor.services ?? []).filter((s) => s.rpcMethods.length === 0).map((s) => s.serviceType);
  if (background.length > 0) return `services without rpcMethods run unprompted: ${background.join(", ")}`;
  return null;
}
