import type { Config } from "../config/schema.ts";
import type { Logger } from "../core/logger.ts";
import { RESERVED_TOOL_NAMES } from "../tools/builtins/names.ts";
import type { LatePlugin } from "./generation-build.ts";
import { Generation, type PluginRecord } from "./generation.ts";
import { discard, type Loaded } from "./loading.ts";
import { claimToolNames } from "./tool-claims.ts";

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
    const others = current.plugins.filter((p) => p.name !== name && current.instance(p.name) !== undefined);
    const claim = claimToolNames(
      [
        ...others.map((p) => ({ plugin: p.name, adapters: current.adaptersOf(p.name), incumbent: true })),
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
  const plugins = current.plugins.map((p) => (p === late.published ? record : p));
  const next = new Generation(current.number + 1, plugins, context.logger);
  for (const p of current.plugins) {
    if (current.instance(p.name) !== undefined && (p.name !== name || keepOld)) next.carry(p.name, current);
  }
  if (attachNew) {
    loaded.slot.generation = next;
    next.attach(name, loaded.instance, adapters, loaded.slot, loaded.remote);
  }
  next.seal();
  return next;
}
