import type { Config } from "../config/schema.ts";
import type { Logger } from "../core/logger.ts";
import { RESERVED_TOOL_NAMES } from "../tools/builtins/names.ts";
import type { LatePlugin } from "./generation-build.ts";
import { Generation, type PluginRecord } from "./generation.ts";
import { discard, type Loaded } from "./loading.ts";
import { claimToolNames } from "./tool-claims.ts";
import type { ToolAdapter } from "./adapters/types.ts";

/**
 * The generation after `current` with a late plugin's load settled in: every plugin `current` holds is carried over,
 * and the late one is attached (its tool names checked against the others, which serve already) or, when its load
 * failed, recorded as failed; a plugin whose previous instance served meanwhile keeps serving it then.
 */
export async function joinGeneration(
  current: Generation,
  late: LatePlugin,
  loaded: Loaded | null,
  context: { config: Config; logger: Logger },
): Promise<Generation> {
  const name = late.published.name;
  let record: PluginRecord = loaded?.record ?? late.record;
  let adapters = loaded?.adapters ?? [];
  if (loaded) {
    // the claims concern only the plugins serving a name the late one declares (found through the tool index)
    const renames = context.config.plugins[name]?.tool_names ?? {};
    const rivals = new Set<string>();
    for (const adapter of loaded.adapters) {
      if (adapter.type !== "tool") continue;
      const declared = (adapter as ToolAdapter).spec.name;
      const holder = current.tool(renames[declared] ?? declared)?.plugin;
      if (holder !== undefined && holder !== name) rivals.add(holder);
    }
    const claim = claimToolNames(
      [
        ...[...rivals].map((p) => ({ plugin: p, adapters: current.adaptersOf(p), incumbent: true })),
        { plugin: name, adapters: loaded.adapters },
      ],
      context.config,
      RESERVED_TOOL_NAMES,
    ).get(name)!;
    record.warnings.push(...claim.warnings);
    adapters = claim.adapters;
    if (claim.conflict) {
      record.state = "conflict";
      record.error = claim.conflict;
      await discard(loaded, context.logger);
    }
  }
  const attachNew = loaded !== null && record.state === "active";
  const keepOld = late.keepsOld && !attachNew;
  if (keepOld) record = { ...late.published, outcome: "failed_kept_old", reloadError: record.error };
  const plugins = [...current.plugins];
  const at = plugins.indexOf(late.published);
  plugins[at] = record;
  const next = new Generation(current.number + 1, plugins, context.logger);
  next.carryFrom(current, keepOld ? [] : [name]);
  next.adoptIndex(current);
  next.sources = current.sources;
  next.unsettled = [...current.unsettled, at];
  if (attachNew) {
    loaded.slot.generation = next;
    next.attach(name, loaded.instance, adapters, loaded.slot, loaded.remote);
  }
  next.seal();
  return next;
}
