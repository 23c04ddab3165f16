import { createToolAdapter } from "./tool.ts";
import type { AdapterFactories } from "./types.ts";

export type { AdapterContext, AdapterFactories, AdapterFactory, CapabilityAdapter, CapabilityAdapterMap, GenerationAdapters } from "./types.ts";
export { createToolAdapter, GuestToolResultSchema, GuestToolSpecSchema, TOOL_NAME_PATTERN, type ToolAdapter } from "./tool.ts";
export { createToolRouter, type ToolAdapterLookup } from "./tool-router.ts";

/**
 * One factory per capability type. A capability whose type has no factory here loads (its plugin stays active)
 * but gets no adapter and a warning on the plugin's status. Part 2 adds middleware, hook, cron, provider and storage.
 */
export function defaultAdapterFactories(): AdapterFactories {
  return { tool: createToolAdapter };
}
