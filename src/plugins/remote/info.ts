import { z } from "zod";
import { RemoteStates, type RemotePluginHandle } from "./types.ts";
import { RemoteTransports } from "./manifest.ts";

/**
 * A running remote plugin as `GET /api/plugins` and `prx plugins list|info --json` show it (snake_case on the wire).
 */
export const RemoteInfoSchema = z.object({
  transport: z.enum(RemoteTransports),
  state: z.enum(RemoteStates),
  pid: z.number().int().nullable(),
  restarts: z.number().int().nonnegative(),
  calls: z.number().int().nonnegative(),
  failures: z.number().int().nonnegative(),
  timeouts: z.number().int().nonnegative(),
  in_flight: z.number().int().nonnegative(),
  host_calls: z.number().int().nonnegative(),
  /** runtime.* calls refused over the plugin's host-call budget, and when the last one was (ISO). */
  host_refused: z.number().int().nonnegative(),
  last_host_refusal: z.string().nullable(),
  malformed: z.number().int().nonnegative(),
  oversize: z.number().int().nonnegative(),
  callbacks: z.number().int().nonnegative(),
  services_started: z.array(z.string()),
  last_error: z.string().nullable(),
  last_event: z.string().nullable(),
  ready_ms: z.number().nullable(),
  /** Last measured: a Worker's JS heap, a subprocess's RSS (MB, one decimal). */
  memory_mb: z.number().nullable(),
  max_memory_mb: z.number().int().positive(),
  /** runtime.logger lines the host dropped (over the plugin's output budget). */
  log_dropped: z.number().int().nonnegative(),
  surfaces: z.object({
    actions: z.array(z.string()),
    providers: z.array(z.string()),
    models: z.array(z.string()),
    events: z.array(z.string()),
    evaluators: z.array(z.string()),
    services: z.array(z.string()),
    routes: z.array(z.string()),
  }),
});
export type RemoteInfo = z.infer<typeof RemoteInfoSchema>;

export function remoteInfo(handle: RemotePluginHandle): RemoteInfo {
  const s = handle.status();
  const d = handle.descriptor();
  return {
    transport: s.transport,
    state: s.state,
    pid: s.pid,
    restarts: s.restarts,
    calls: s.calls,
    failures: s.failures,
    timeouts: s.timeouts,
    in_flight: s.inFlight,
    host_calls: s.hostCalls,
    host_refused: s.hostRefused,
    last_host_refusal: s.lastHostRefusal,
    malformed: s.malformed,
    oversize: s.oversize,
    callbacks: s.callbacks,
    services_started: s.servicesStarted,
    last_error: s.lastError,
    last_event: s.lastEvent,
    ready_ms: s.readyMs === null ? null : Math.round(s.readyMs * 10) / 10,
    memory_mb: s.memoryBytes === null ? null : Math.round(s.memoryBytes / 104857.6) / 10,
    max_memory_mb: s.maxMemoryMb,
    log_dropped: s.logDropped,
    surfaces: {
      actions: (d.actions ?? []).map((a) => a.name),
      providers: (d.providers ?? []).map((p) => p.name),
      models: Object.keys(d.models ?? {}),
      events: Object.keys(d.events ?? {}),
      evaluators: (d.evaluators ?? []).map((e) => e.name),
      services: (d.services ?? []).map((x) => x.serviceType),
      routes: (d.routes ?? []).map((r) => `${r.type} ${r.path}`),
    },
  };
}
