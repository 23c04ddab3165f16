import type { ToolSpec } from "../../providers/types.ts";
import type { Tool, ToolSource } from "../../tools/types.ts";
import type { ToolAdapter } from "./types.ts";

/** What the router needs from a generation. */
export interface ToolAdapterLookup {
  tool(name: string): ToolAdapter | undefined;
  toolSpecs(): ToolSpec[];
}

const NO_SPECS: ToolSpec[] = [];

/**
 * The stable ToolSource the agent's registry holds: every list/get/execute resolves the generation that is
 * current at that moment, so a reload never leaves a caller with a stale adapter. The in-flight count of the
 * generation is taken synchronously with the lookup (adapter.call tracks before its first await).
 */
export function createToolRouter(current: () => ToolAdapterLookup | null, id = "plugins"): ToolSource {
  return {
    id,
    list: () => current()?.toolSpecs() ?? NO_SPECS,
    get(name: string): Tool | undefined {
      const first = current()?.tool(name);
      if (!first) return undefined;
      return {
        get spec() {
          return current()?.tool(name)?.spec ?? first.spec;
        },
        get risk() {
          return (current()?.tool(name) ?? first).capability.risk;
        },
        async execute(args, context) {
          const adapter = current()?.tool(name);
          if (!adapter) {
            return {
              success: false,
              output: "",
              error: `plugin tool "${name}" is no longer available (the plugin was reloaded without it or disabled)`,
            };
          }
          return adapter.call(args, context);
        },
      };
    },
  };
}
