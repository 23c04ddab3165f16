import type { Config } from "../config/schema.ts";
import { PrxError } from "../core/errors.ts";
import type { CapabilityAdapter } from "./adapters/types.ts";
import type { ToolAdapter } from "./adapters/types.ts";

/** One loaded plugin's claim on tool names: its tool adapters as it declared them. */
export interface ToolClaimant {
  plugin: string;
  adapters: CapabilityAdapter[];
  /** Serving already and carried over by a reload: it keeps its names, a newcomer claiming one is in conflict. */
  incumbent?: boolean;
}

/** What the claims decide per plugin: its adapters (tools renamed as configured), or why it may not serve. */
export interface ClaimOutcome {
  adapters: CapabilityAdapter[];
  conflict: PrxError | null;
  warnings: string[];
}

const isTool = (adapter: CapabilityAdapter): adapter is ToolAdapter => adapter.type === "tool";

/** The adapter under another name: calls, status and disposal stay the original's. */
function renamed(adapter: ToolAdapter, name: string): ToolAdapter {
  return Object.create(adapter, { spec: { value: { ...adapter.spec, name }, enumerable: true } }) as ToolAdapter;
}

function renameHint(plugin: string, name: string): string {
  return `rename it in config.toml: [plugins.${plugin}.tool_names] ${name} = "${plugin.replace(/-/g, "_")}_${name}"`;
}

/**
 * Decide who serves each tool name, so no plugin can capture another's calls: `reserved` names (built-in tools,
 * wasm_plugins_manage) are refused to every plugin; a name declared by more than one plugin (or twice by one) is
 * served by the one plugin whose config says `tools_owner = true`, else by none of them. A plugin that loses a name
 * is in conflict and serves nothing. Renames from `[plugins.<name>.tool_names]` apply first (an incumbent's adapters
 * are already renamed). An incumbent never loses a name to a plugin rebuilt beside it.
 */
export function claimToolNames(
  claimants: readonly ToolClaimant[],
  config: Config,
  reserved: ReadonlySet<string>,
): Map<string, ClaimOutcome> {
  const outcomes = new Map<string, ClaimOutcome>();
  const claims = new Map<string, string[]>();
  const incumbents = new Set(claimants.filter((c) => c.incumbent).map((c) => c.plugin));
  for (const { plugin, adapters, incumbent } of claimants) {
    const renames = incumbent ? {} : (config.plugins[plugin]?.tool_names ?? {});
    const declared = new Set(adapters.filter(isTool).map((a) => a.spec.name));
    const warnings = Object.keys(renames)
      .filter((name) => !declared.has(name))
      .map((name) => `tool_names renames "${name}", which this plugin does not declare`);
    const mapped = adapters.map((a) => (isTool(a) && renames[a.spec.name] ? renamed(a, renames[a.spec.name]!) : a));
    let conflict: PrxError | null = null;
    for (const tool of mapped.filter(isTool)) {
      const name = tool.spec.name;
      if (reserved.has(name) && !conflict) {
        conflict = new PrxError("PLUGIN_CONFLICT", `plugin "${plugin}" declares tool "${name}", a name reserved for prx's built-in tool`, {
          hint: renameHint(plugin, name),
        });
      }
      claims.set(name, [...(claims.get(name) ?? []), plugin]);
    }
    outcomes.set(plugin, { adapters: mapped, conflict, warnings });
  }
  for (const [name, claimers] of claims) {
    if (claimers.length < 2) continue;
    const distinct = [...new Set(claimers)];
    const held = distinct.filter((p) => incumbents.has(p));
    const owners = held.length > 0 ? held : distinct.filter((p) => config.plugins[p]?.tools_owner === true);
    const owner = owners.length === 1 && claimers.filter((p) => p === owners[0]).length === 1 ? owners[0] : undefined;
    for (const plugin of distinct) {
      const outcome = outcomes.get(plugin)!;
      if (plugin === owner || outcome.conflict) continue;
      const why = incumbents.has(owner ?? "") ? "it serves it already" : "tools_owner = true";
      outcome.conflict = owner
        ? new PrxError("PLUGIN_CONFLICT", `tool "${name}" is served by plugin "${owner}" (${why}); plugin "${plugin}" declares it too`, {
            hint: renameHint(plugin, name),
          })
        : new PrxError(
            "PLUGIN_CONFLICT",
            `tool "${name}" is declared ${distinct.length > 1 ? `by plugins ${distinct.map((p) => `"${p}"`).join(", ")}` : `twice by plugin "${plugin}"`}; none of them serves it`,
            { hint: `name its owner in config.toml ([plugins.${distinct[0]}] tools_owner = true) or ${renameHint(plugin, name)}` },
          );
    }
  }
  return outcomes;
}
