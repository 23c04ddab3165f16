import type { PluginDescriptor } from "../protocol/index.ts";

/** Apply an init-time `worker-announce-dynamic` delta: append-only, by surface. */
export function mergeDescriptor(base: PluginDescriptor, delta: PluginDescriptor): PluginDescriptor {
  const out: PluginDescriptor = { ...base };
  const arrays = ["actions", "providers", "services", "evaluators", "routes"] as const;
  for (const key of arrays) {
    const added = delta[key];
    if (added?.length) (out as Record<string, unknown>)[key] = [...(base[key] ?? []), ...added];
  }
  if (delta.models) out.models = { ...(base.models ?? {}), ...delta.models };
  if (delta.events) {
    const events = { ...(base.events ?? {}) };
    for (const [name, refs] of Object.entries(delta.events)) events[name] = [...(events[name] ?? []), ...refs];
    out.events = events;
  }
  return out;
}
