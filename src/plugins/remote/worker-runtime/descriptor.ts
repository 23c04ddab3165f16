import type { PluginDescriptor, RpcRef, SurfaceKind } from "../protocol/index.ts";
import { rpcMethodsOf } from "./services.ts";
import type { Plugin, ServiceClass } from "./types.ts";

/** A live function behind one announced RPC id. */
export interface HandlerEntry {
  id: string;
  surface: SurfaceKind;
  /** "handler" | "validate" | "get" | method name: how the dispatcher calls it. */
  role: string;
  fn: (...args: never[]) => unknown;
  /** Service entries: the class whose lazily started instance owns the method. */
  service?: ServiceClass;
}

export class HandlerRegistry {
  private readonly entries = new Map<string, HandlerEntry>();
  get(id: string): HandlerEntry | undefined {
    return this.entries.get(id);
  }
  has(id: string): boolean {
    return this.entries.has(id);
  }
  get size(): number {
    return this.entries.size;
  }
  /** Allocates `base`, or `base~2`, `base~3`, ... when a duplicate name was already taken. */
  add(base: string, entry: Omit<HandlerEntry, "id">): RpcRef {
    let id = base;
    for (let n = 2; this.entries.has(id); n++) id = `${base}~${n}`;
    this.entries.set(id, { ...entry, id });
    return { rpc: true, id };
  }
}

const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

function fnOrThrow(value: unknown, where: string): (...args: never[]) => unknown {
  if (typeof value !== "function") throw new TypeError(`${where} must be a function`);
  return value as (...args: never[]) => unknown;
}

/**
 * Replace every function of `plugin` by a stable RPC id (see PROTOCOL.md) and register the live function.
 * Ids depend on names, not on declaration order, so they survive restarts and reordering.
 */
export function buildDescriptor(
  plugin: Plugin,
  registry: HandlerRegistry,
  eventBase: Map<string, number>,
): PluginDescriptor {
  const d: PluginDescriptor = { name: plugin.name };
  if (plugin.description) d.description = plugin.description;
  if (plugin.actions?.length) {
    d.actions = plugin.actions.map((a) => {
      const handler = registry.add(`action:${a.name}`, {
        surface: "action",
        role: "handler",
        fn: fnOrThrow(a.handler, `action ${a.name}.handler`),
      });
      const entry: NonNullable<PluginDescriptor["actions"]>[number] = { name: a.name, handler };
      if (a.validate) {
        entry.validate = registry.add(`${handler.id}.validate`, {
          surface: "action",
          role: "validate",
          fn: fnOrThrow(a.validate, `action ${a.name}.validate`),
        });
      }
      if (a.description) entry.description = a.description;
      if (a.similes) entry.similes = a.similes;
      if (a.examples !== undefined) entry.examples = a.examples;
      if (a.parameters) entry.parameters = a.parameters;
      return entry;
    });
  }
  if (plugin.providers?.length) {
    d.providers = plugin.providers.map((p) => {
      const get = registry.add(`provider:${p.name}`, {
        surface: "provider",
        role: "get",
        fn: fnOrThrow(p.get, `provider ${p.name}.get`),
      });
      const entry: NonNullable<PluginDescriptor["providers"]>[number] = { name: p.name, get };
      if (p.description) entry.description = p.description;
      if (p.dynamic !== undefined) entry.dynamic = p.dynamic;
      if (p.position !== undefined) entry.position = p.position;
      if (p.private !== undefined) entry.private = p.private;
      return entry;
    });
  }
  if (plugin.services?.length) {
    d.services = plugin.services.map((s) => {
      if (typeof s.serviceType !== "string" || !s.serviceType)
        throw new TypeError("service class needs static serviceType");
      if (s.rpcMethods !== undefined && !Array.isArray(s.rpcMethods))
        throw new TypeError(`service ${s.serviceType}: static rpcMethods must be an array of method names`);
      fnOrThrow(s.start, `service ${s.serviceType}.start`);
      const methods: Record<string, RpcRef> = {};
      for (const method of rpcMethodsOf(s)) {
        methods[method] = registry.add(`service:${s.serviceType}.${method}`, {
          surface: "service",
          role: method,
          fn: s.start as never,
          service: s,
        });
      }
      const entry: NonNullable<PluginDescriptor["services"]>[number] = {
        serviceType: s.serviceType,
        rpcMethods: [...rpcMethodsOf(s)],
        methods,
      };
      if (s.capabilityDescription) entry.description = s.capabilityDescription;
      return entry;
    });
  }
  if (plugin.models && Object.keys(plugin.models).length > 0) {
    d.models = {};
    for (const [type, fn] of Object.entries(plugin.models)) {
      d.models[type] = registry.add(`model:${type}`, {
        surface: "model",
        role: "handler",
        fn: fnOrThrow(fn, `model ${type}`),
      });
    }
  }
  if (plugin.events && Object.keys(plugin.events).length > 0) {
    d.events = {};
    for (const [name, handlers] of Object.entries(plugin.events)) {
      if (!Array.isArray(handlers)) throw new TypeError(`events.${name} must be an array of functions`);
      const start = eventBase.get(name) ?? 0;
      d.events[name] = handlers.map((fn, i) =>
        registry.add(`event:${name}#${start + i}`, {
          surface: "event",
          role: "handler",
          fn: fnOrThrow(fn, `event ${name}[${i}]`),
        }),
      );
      eventBase.set(name, start + handlers.length);
    }
  }
  if (plugin.evaluators?.length) {
    d.evaluators = plugin.evaluators.map((e) => {
      const handler = registry.add(`evaluator:${e.name}`, {
        surface: "evaluator",
        role: "handler",
        fn: fnOrThrow(e.handler, `evaluator ${e.name}.handler`),
      });
      const entry: NonNullable<PluginDescriptor["evaluators"]>[number] = { name: e.name, handler };
      if (e.validate) {
        entry.validate = registry.add(`${handler.id}.validate`, {
          surface: "evaluator",
          role: "validate",
          fn: fnOrThrow(e.validate, `evaluator ${e.name}.validate`),
        });
      }
      if (e.description) entry.description = e.description;
      if (e.similes) entry.similes = e.similes;
      if (e.alwaysRun !== undefined) entry.alwaysRun = e.alwaysRun;
      return entry;
    });
  }
  if (plugin.routes?.length) {
    d.routes = plugin.routes.map((r) => {
      const type = String(r.type ?? "GET").toUpperCase();
      if (!METHODS.has(type)) throw new TypeError(`route ${r.path}: unsupported method ${type}`);
      const fn = fnOrThrow(r.handler ?? r.routeHandler, `route ${type} ${r.path} handler`);
      const handler = registry.add(`route:${type} ${r.path}`, { surface: "route", role: "handler", fn });
      const entry: NonNullable<PluginDescriptor["routes"]>[number] = {
        type: type as "GET",
        path: r.path,
        handler,
      };
      if (r.name) entry.name = r.name;
      if (r.public !== undefined) entry.public = r.public;
      if (r.isMultipart !== undefined) entry.isMultipart = r.isMultipart === true;
      return entry;
    });
  }
  return d;
}

export interface SurfaceSnapshot {
  arrays: Map<string, Set<unknown>>;
  models: Map<string, unknown>;
  events: Map<string, unknown[]>;
}

const ARRAY_SURFACES = ["actions", "providers", "evaluators", "services", "routes"] as const;

export function snapshotSurfaces(plugin: Plugin): SurfaceSnapshot {
  const arrays = new Map<string, Set<unknown>>();
  for (const key of ARRAY_SURFACES) arrays.set(key, new Set((plugin[key] as unknown[] | undefined) ?? []));
  return {
    arrays,
    models: new Map(Object.entries(plugin.models ?? {})),
    events: new Map(Object.entries(plugin.events ?? {}).map(([k, v]) => [k, [...(v ?? [])]])),
  };
}

/**
 * The append-only delta between the snapshot taken at announce time and the plugin after init. Replacements and
 * removals are not announced; they are returned as warnings.
 */
export function surfaceDelta(plugin: Plugin, before: SurfaceSnapshot): { delta: Plugin | null; warnings: string[] } {
  const delta: Plugin = { name: plugin.name };
  const warnings: string[] = [];
  let any = false;
  for (const key of ARRAY_SURFACES) {
    const seen = before.arrays.get(key)!;
    const now = (plugin[key] as unknown[] | undefined) ?? [];
    const added = now.filter((item) => !seen.has(item));
    const nowSet = new Set(now);
    const removed = [...seen].filter((item) => !nowSet.has(item)).length;
    if (removed > 0) warnings.push(`init removed or replaced ${removed} of ${key}; only appended ${key} are announced`);
    if (added.length > 0) {
      (delta as Record<string, unknown>)[key] = added;
      any = true;
    }
  }
  const models: Record<string, never> = {};
  for (const [type, fn] of Object.entries(plugin.models ?? {})) {
    if (!before.models.has(type)) models[type] = fn as never;
    else if (before.models.get(type) !== fn)
      warnings.push(`init replaced model ${type}; the replacement is not announced`);
  }
  if (Object.keys(models).length > 0) {
    delta.models = models;
    any = true;
  }
  const events: Record<string, never[]> = {};
  for (const [name, handlers] of Object.entries(plugin.events ?? {})) {
    const old = before.events.get(name) ?? [];
    const prefixKept = old.every((fn, i) => handlers[i] === fn);
    if (!prefixKept) warnings.push(`init replaced handlers of event ${name}; only appended handlers are announced`);
    const added = handlers.slice(old.length).filter((fn) => !old.includes(fn));
    if (added.length > 0) {
      events[name] = added as never[];
      any = true;
    }
  }
  if (Object.keys(events).length > 0) delta.events = events;
  return { delta: any ? delta : null, warnings };
}
