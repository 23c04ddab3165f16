import { PrxError } from "../../core/errors.ts";
import { cronJobId } from "../adapters/cron.ts";
import { WASM_PROVIDER_PREFIX } from "../adapters/provider.ts";
import type { PluginServices } from "../runtime/index.ts";
import { listPlugins, pluginInfo } from "../api.ts";
import type { Generation } from "../generation.ts";
import { middlewareTest } from "./middleware.ts";
import type { ProbeRequest, ProbeResponse } from "./request.ts";
import { requireLoaded, unavailable, unloadedOwner } from "./targets.ts";
import type { CapabilityType } from "../types.ts";

/**
 * Direct probes of the current production generation (`wasm_plugins_manage`, `prx plugins probe`,
 * `POST /api/plugins/:name/probe`): the same adapters that serve traffic, counted in their status.
 * A probe scoped to a plugin (the API's :name, or `plugin` in the request) only touches that plugin's capabilities;
 * one whose plugin did not load says so ("<plugin> failed to load: <error>").
 */

function requirePlugin(generation: Generation, plugin: string | undefined): void {
  if (plugin !== undefined && !generation.plugin(plugin)) {
    throw new PrxError("PLUGIN_NOT_FOUND", `no plugin named "${plugin}" in generation ${generation.number}`, {
      status: 404,
    });
  }
}

/** A name only a plugin that did not load would serve: say that instead of "unknown". */
function requireServed(generation: Generation, type: CapabilityType, plugin: string | undefined, name: string): void {
  requireLoaded(generation, plugin);
  const owner = unloadedOwner(generation, type, name);
  if (owner && (plugin === undefined || owner.name === plugin)) throw unavailable(owner);
}

function notOwned(what: string, name: string, plugin: string): PrxError {
  return new PrxError("BAD_REQUEST", `${what} "${name}" does not belong to plugin "${plugin}"`, { status: 400 });
}

async function cronRun(services: PluginServices, generation: Generation, plugin: string | undefined, name: string) {
  const jobs = generation.adapters.cron.filter((a) => plugin === undefined || a.plugin === plugin);
  const match =
    jobs.find((a) => a.job.id === name) ??
    jobs.find((a) => a.capability.name === name) ??
    (jobs.filter((a) => a.plugin === name).length === 1 ? jobs.find((a) => a.plugin === name) : undefined);
  if (!match) {
    requireServed(generation, "cron", plugin, name);
    throw new PrxError("PLUGIN_NOT_FOUND", `no cron job "${name}"${plugin ? ` in plugin "${plugin}"` : ""}`, {
      status: 404,
      hint: `jobs: ${jobs.map((a) => a.job.id).join(", ") || "(none)"} (use "<plugin>/<capability>", the capability or the plugin name)`,
    });
  }
  const record = await services.cron.runNow(cronJobId(match.plugin, match.capability.name));
  return {
    job: record.job,
    ok: record.ok,
    output: record.output ?? null,
    error: record.error ?? null,
    duration_ms: record.durationMs,
  };
}

function bare(name: string): string {
  return name.startsWith(WASM_PROVIDER_PREFIX) ? name.slice(WASM_PROVIDER_PREFIX.length) : name;
}

async function providerChat(
  services: PluginServices,
  generation: Generation,
  request: Extract<ProbeRequest, { action: "provider_chat" }>,
) {
  const name = bare(request.name);
  const owner = generation.providers.get(name)?.plugin;
  if (owner === undefined) requireServed(generation, "provider", request.plugin, name);
  if (request.plugin !== undefined && owner !== undefined && owner !== request.plugin)
    throw notOwned("provider", request.name, request.plugin);
  const provider = services.providers.resolve(WASM_PROVIDER_PREFIX + name)!;
  const response = await provider.chat({
    messages: request.messages,
    model: request.model ?? "default",
    temperature: request.temperature,
  });
  return { provider: response.provider, model: response.model, text: response.text, tool_calls: response.toolCalls };
}

function need<T>(value: T | undefined, field: string, op: string): T {
  if (value === undefined) throw new PrxError("BAD_REQUEST", `storage op "${op}" needs "${field}"`, { status: 400 });
  return value;
}

async function storage(
  services: PluginServices,
  generation: Generation,
  request: Extract<ProbeRequest, { action: "storage" }>,
) {
  const name = bare(request.name);
  const owner = generation.storages.get(name)?.plugin;
  if (owner === undefined) requireServed(generation, "storage", request.plugin, name);
  if (request.plugin !== undefined && owner !== undefined && owner !== request.plugin)
    throw notOwned("storage", request.name, request.plugin);
  const backend = services.storages.resolve(name)!;
  const op = request.op;
  switch (op) {
    case "health":
      return { backend: backend.name, op, healthy: await backend.health() };
    case "count":
      return { backend: backend.name, op, count: await backend.count() };
    case "forget":
      return { backend: backend.name, op, forgotten: await backend.forget(need(request.key, "key", op)) };
    case "store": {
      const key = need(request.key, "key", op);
      await backend.store(
        key,
        need(request.content, "content", op),
        request.category ?? "probe",
        request.session_id ?? null,
      );
      return { backend: backend.name, op, stored: key };
    }
    case "recall": {
      const entries = await backend.recall(
        request.query ?? request.key ?? "",
        request.limit ?? 10,
        request.session_id ?? null,
      );
      return { backend: backend.name, op, entries };
    }
  }
}

function status(services: PluginServices, plugin: string | undefined) {
  const { runtime, cron, hooks, bus } = services;
  if (plugin !== undefined) {
    return { plugin: pluginInfo(runtime, plugin), cron: cron.status().filter((j) => j.id.startsWith(`${plugin}/`)) };
  }
  const events = bus?.stats();
  return {
    plugins: listPlugins(runtime).plugins,
    cron: cron.status(),
    hooks: hooks.status(),
    events: events
      ? {
          published: events.published,
          rejected: events.rejected,
          delivered: events.delivered,
          dropped: events.dropped,
          subscriptions: events.subscriptions.length,
        }
      : null,
  };
}

/** Run one probe on the current generation. Failures are PrxErrors carrying their HTTP status. */
export async function runProbe(services: PluginServices, request: ProbeRequest): Promise<ProbeResponse> {
  const { runtime } = services;
  const plugin = "plugin" in request ? request.plugin : undefined;
  if (request.action === "reload") {
    const generation = await runtime.reload(plugin);
    return { action: "reload", plugin: plugin ?? null, generation, result: { success: true, generation } };
  }
  const generation = runtime.current();
  requirePlugin(generation, plugin);
  let result: Record<string, unknown>;
  switch (request.action) {
    case "list":
      result = {
        plugins: generation.plugins.map((p) => ({
          name: p.name,
          version: p.version,
          status: p.state,
          capabilities: p.capabilities.map((c) => `${c.type}:${c.name}`),
          message: p.error?.message ?? null,
        })),
      };
      break;
    case "status":
      result = status(services, plugin);
      break;
    case "middleware_test":
      result = await middlewareTest(generation, plugin, request.stage, request.data);
      break;
    case "cron_run":
      result = await cronRun(services, generation, plugin, request.name);
      break;
    case "provider_chat":
      result = await providerChat(services, generation, request);
      break;
    case "storage":
      result = await storage(services, generation, request);
      break;
  }
  return { action: request.action, plugin: plugin ?? null, generation: generation.number, result };
}
