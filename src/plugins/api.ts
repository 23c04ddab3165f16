import { z } from "zod";
import { PrxError } from "../core/errors.ts";
import { ReloadOutcomes, type Generation, type PluginRecord } from "./generation.ts";
import { MIDDLEWARE_STAGES } from "./manifest.ts";
import { remoteInfo, RemoteInfoSchema, type RemoteInfo } from "./remote/info.ts";
import type { PluginRuntime, ReloadOptions } from "./runtime/index.ts";
import type { AdapterCounters, StatusStore } from "./status.ts";
import { CapabilityTypes, PluginKinds, PluginRunStates, type PluginInstance, type PluginRunState } from "./types.ts";

/**
 * Framework-agnostic handlers behind `GET /api/plugins`, `GET /api/plugins/:name` and
 * `POST /api/plugins/:name/reload`, with their zod response schemas (the gateway exposes them in OpenAPI).
 * Errors are PrxErrors carrying the HTTP status (404 PLUGIN_NOT_FOUND, 400 PLUGIN_RELOAD).
 */
export const AdapterCountersSchema = z.object({
  invocations: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  last_duration_ms: z.number().nullable(),
  last_event: z.object({ name: z.string(), at: z.string() }).nullable(),
  last_error: z.object({ message: z.string(), at: z.string() }).nullable(),
  /** Turns a middleware ended with a block, and the last one (stage and the reason the user got). */
  blocks: z.number().int().nonnegative(),
  last_block: z.object({ stage: z.string(), reason: z.string(), at: z.string() }).nullable(),
  extra: z.record(z.string(), z.number()),
});

export const PluginCapabilityInfoSchema = z.object({
  type: z.enum(CapabilityTypes),
  name: z.string(),
  description: z.string(),
  priority: z.number().int(),
  events: z.array(z.string()),
  schedule: z.string().nullable(),
  stages: z.array(z.enum(MIDDLEWARE_STAGES)),
  /** Whether the current generation has a live adapter for it. */
  live: z.boolean(),
  counters: AdapterCountersSchema,
});

/**
 * `conflict`: loaded, but it declares a tool name it may not serve (see message); it serves nothing. `starting`: still
 * loading after the build stopped waiting; it joins the next generation once ready.
 */
export const PluginStatusNames = ["active", "error", "disabled", "conflict", "starting"] as const;
export type PluginStatusName = (typeof PluginStatusNames)[number];

export const PluginInfoSchema = z.object({
  name: z.string(),
  version: z.string().nullable(),
  kind: z.enum(PluginKinds).nullable(),
  description: z.string(),
  dir: z.string(),
  capabilities: z.array(PluginCapabilityInfoSchema),
  status: z.enum(PluginStatusNames),
  message: z.string().nullable(),
  error_code: z.string().nullable(),
  permissions: z.object({
    required: z.array(z.string()),
    optional: z.array(z.string()),
    granted: z.array(z.string()),
    missing: z.array(z.string()),
  }),
  warnings: z.array(z.string()),
  /** What the build of the current generation did with it; `error` says why a rebuild failed (failed_kept_old). */
  reload: z.object({ outcome: z.enum(ReloadOutcomes), error: z.string().nullable() }),
  /** Kind "remote" with a loaded worker: its supervisor's state, counters and announced surfaces. */
  remote: RemoteInfoSchema.nullable(),
  /**
   * A loaded plugin's guest: `idle` (not started, or stopped after a time without calls: the next call starts it),
   * `starting`, `running`; null when nothing is loaded.
   */
  run_state: z.enum(PluginRunStates).nullable(),
  /**
   * A loaded WASM plugin: its guest's host calls (rpc, events.publish) refused over its host-call budget, and when
   * the last one was (ISO). A remote plugin's are `remote.host_refused` and `remote.last_host_refusal`.
   */
  host_calls: z.object({ refused: z.number().int().nonnegative(), last_refusal: z.string().nullable() }).nullable(),
});

export const PluginListResponseSchema = z.object({
  plugins: z.array(PluginInfoSchema),
  count: z.number().int().nonnegative(),
  generation: z.number().int().positive(),
});

export const PluginReloadResponseSchema = z.object({
  success: z.literal(true),
  generation: z.number().int().positive(),
  /** Every plugin of the published generation: rebuilt, carried over (its live instance untouched), or kept old. */
  plugins: z.array(z.object({ name: z.string(), outcome: z.enum(ReloadOutcomes), error: z.string().nullable() })),
  /** With `[bus] backend = "redis"`: every replica's outcome (this one first), each replica reloading its own runtime. */
  replicas: z
    .array(z.object({ replica: z.string(), ok: z.boolean(), generation: z.number().int().nullable(), error: z.string().nullable() }))
    .optional(),
});

/** Query of the reload routes: `force` publishes even when an active plugin would fail, `all` rebuilds every plugin. */
export const ReloadQuerySchema = z.object({
  force: z.enum(["true", "false"]).optional(),
  all: z.enum(["true", "false"]).optional(),
});

export type AdapterCountersInfo = z.infer<typeof AdapterCountersSchema>;
export type PluginInfo = z.infer<typeof PluginInfoSchema>;
export type PluginListResponse = z.infer<typeof PluginListResponseSchema>;
export type PluginReloadResponse = z.infer<typeof PluginReloadResponseSchema>;

function countersInfo(c: AdapterCounters): AdapterCountersInfo {
  return {
    invocations: c.invocations,
    errors: c.errors,
    last_duration_ms: c.lastDurationMs,
    last_event: c.lastEvent,
    last_error: c.lastError,
    blocks: c.blocks,
    last_block: c.lastBlock,
    extra: c.extra,
  };
}

/** Whether a loaded plugin's guest runs now; a remote plugin's from its supervisor's state. */
function runStateOf(instance: PluginInstance | undefined, worker: RemoteInfo | null): PluginRunState | null {
  if (worker) {
    if (worker.state === "starting" || worker.state === "restarting") return "starting";
    return worker.state === "ready" || worker.state === "cancelling" ? "running" : "idle";
  }
  if (!instance) return null;
  return instance.runState?.() ?? "running";
}

/** One plugin record of a generation as the API shows it. */
export function describePlugin(record: PluginRecord, generation: Generation, status: StatusStore): PluginInfo {
  const live = new Set(generation.adaptersOf(record.name).map((a) => `${a.type}:${a.capability.name}`));
  const counters = status.list(record.name, record.capabilities);
  const remote = generation.remote(record.name);
  const worker = remote ? remoteInfo(remote.handle) : null;
  const budget = remote ? undefined : generation.instance(record.name)?.hostCalls?.();
  // A loaded remote plugin that gave up restarting (or was stopped) is not serving: report it as an error.
  const down = record.state === "active" && (worker?.state === "failed" || worker?.state === "stopped");
  return {
    name: record.name,
    version: record.version,
    kind: record.kind,
    description: record.description,
    dir: record.dir,
    capabilities: record.capabilities.map((cap, i) => ({
      type: cap.type,
      name: cap.name,
      description: cap.description,
      priority: cap.priority,
      events: cap.events,
      schedule: cap.schedule ?? null,
      stages: cap.stages,
      live: live.has(`${cap.type}:${cap.name}`),
      counters: countersInfo(counters[i]!.counters),
    })),
    status: down ? "error" : record.state,
    message: record.error
      ? record.error.describe()
      : down
        ? `remote plugin is ${worker!.state}: ${worker!.last_error ?? "no error recorded"}`
        : record.state === "disabled"
          ? "disabled in config.toml"
          : record.state === "starting"
            ? "starting: not ready yet; it joins the next generation once it is"
            : record.outcome === "rebuilding"
              ? "rebuilding: the previous instance serves until the new one is ready"
              : null,
    error_code: record.error?.code ?? (down ? "REMOTE_CRASHED" : null),
    reload: { outcome: record.outcome, error: record.reloadError?.message ?? null },
    permissions: {
      required: record.permissions.required,
      optional: record.permissions.optional,
      granted: record.permissions.granted,
      missing: record.permissions.missing,
    },
    warnings: record.warnings,
    remote: worker,
    run_state: runStateOf(generation.instance(record.name), worker),
    host_calls: budget
      ? { refused: budget.refused, last_refusal: budget.lastRefusedAt === null ? null : new Date(budget.lastRefusedAt).toISOString() }
      : null,
  };
}

export function listPlugins(runtime: PluginRuntime): PluginListResponse {
  const generation = runtime.current();
  const plugins = generation.plugins.map((record) => describePlugin(record, generation, runtime.status));
  return { plugins, count: plugins.length, generation: generation.number };
}

export function pluginInfo(runtime: PluginRuntime, name: string): PluginInfo {
  const generation = runtime.current();
  const record = generation.plugin(name);
  if (!record) {
    throw new PrxError("PLUGIN_NOT_FOUND", `no plugin named "${name}" in generation ${generation.number}`, {
      status: 404,
      hint: "list plugins with GET /api/plugins or `prx plugins list`",
    });
  }
  return describePlugin(record, generation, runtime.status);
}

/** Reload one plugin (with the changed ones), or every plugin when `name` is undefined. */
export async function reloadPlugin(
  runtime: PluginRuntime,
  name: string | undefined,
  options: ReloadOptions = {},
): Promise<PluginReloadResponse> {
  const generation = await runtime.reload(name, options);
  const plugins = runtime
    .current()
    .plugins.map((p) => ({ name: p.name, outcome: p.outcome, error: p.reloadError?.message ?? null }));
  const replicas = runtime.replicas;
  if (!replicas) return { success: true, generation, plugins };
  // Replicas sharing a bus reload too; the answer lists each one's outcome, this one first.
  const others = await replicas.reloadOthers(name, { force: options.force === true, all: options.all === true });
  const self = { replica: replicas.replica, ok: true, generation, error: null };
  return { success: true, generation, plugins, replicas: [self, ...others] };
}
