import type { Config } from "../config/schema.ts";
import { PrxError } from "../core/errors.ts";
import { RESERVED_TOOL_NAMES } from "../tools/builtins/names.ts";
import { admit, recordFrom } from "./admission.ts";
import { discoverPlugins, isOverLimit, type DiscoveredPlugin } from "./discovery.ts";
import { EntryHashes, fingerprintOf } from "./fingerprint.ts";
import { Generation, type PluginRecord } from "./generation.ts";
import { discard, loadOne, type LoadContext, type Loaded } from "./loading.ts";
import { claimToolNames } from "./tool-claims.ts";

export interface BuildInput extends LoadContext {
  number: number;
  pluginsDir: string;
  config: Config;
  /** Inspect these directories instead of discovering `pluginsDir` (prx plugins validate). */
  discovered?: DiscoveredPlugin[];
  /**
   * Fail the whole build when plugins/ holds more entries than admitted (a reload: the old generation keeps
   * serving). Without it (a start) what fits is admitted and the rest listed as refused.
   */
  refuseOverLimit?: boolean;
  /** Entry-file hashes for fingerprints (the runtime keeps one, so unchanged files are not hashed again). */
  hashes?: EntryHashes;
  /** The generation serving now: its active plugins whose inputs did not change are carried over, not rebuilt. */
  previous?: Generation;
  /** Rebuild these plugins even when unchanged (a named reload); "all" rebuilds every plugin (a full reload). */
  rebuild?: "all" | ReadonlySet<string>;
  /**
   * Publish what the directory holds even where it is worse: a plugin that fails to rebuild is published failed
   * instead of keeping its previous instance, and nothing counts as worse.
   */
  force?: boolean;
}

/** A plugin that was active and would not be in the candidate: why. */
export interface Worsened {
  plugin: string;
  why: string;
}

export interface BuildResult {
  generation: Generation;
  /** Plugins active in `previous` that the candidate would lose (empty without a previous or with force). */
  worsened: Worsened[];
}

function isCarried(record: PluginRecord, input: BuildInput): boolean {
  const previous = input.previous;
  if (!previous || input.rebuild === "all" || input.rebuild?.has(record.name)) return false;
  const before = previous.plugin(record.name);
  return before?.state === "active" && before.fingerprint === record.fingerprint && previous.instance(record.name) !== undefined;
}

/** The candidate takes the previous record's view of the plugin it adopts (announced capabilities, load warnings). */
function keepPrevious(record: PluginRecord, before: PluginRecord, outcome: "carried_over" | "failed_kept_old"): void {
  const reloadError = outcome === "failed_kept_old" ? record.error : null;
  Object.assign(record, {
    ...before,
    outcome,
    reloadError,
    warnings: outcome === "failed_kept_old" ? [...before.warnings, ...record.warnings] : before.warnings,
  });
}

/** Taken down on purpose by config.toml: disabled, or a required permission no longer granted. */
function byConfig(record: PluginRecord): boolean {
  return record.state === "disabled" || record.error?.code === "PLUGIN_PERMISSION";
}

/** A rebuilt plugin that failed, was serving before, and may keep serving its previous instance. */
function keepsOld(record: PluginRecord, input: BuildInput): boolean {
  const previous = input.previous;
  if (!previous || input.force || record.state === "active" || byConfig(record)) return false;
  if (input.rebuild !== "all" && input.rebuild?.has(record.name)) return false;
  return previous.plugin(record.name)?.state === "active" && previous.instance(record.name) !== undefined;
}

/**
 * Build a complete candidate generation: discover, admit, then load each plugin that must be (re)built and carry
 * over the previous generation's live instance of every active plugin whose inputs (fingerprint.ts) did not change.
 * Individual plugin failures become error records or keep the previous instance (`failed_kept_old`); only a
 * failure of discovery as a whole throws. Nothing of `previous` changes until the candidate is published.
 */
export async function buildGeneration(input: BuildInput): Promise<BuildResult> {
  const discovered = input.discovered ?? discoverPlugins(input.pluginsDir);
  const overLimit = input.refuseOverLimit ? discovered.find(isOverLimit) : undefined;
  if (overLimit && !overLimit.ok) throw overLimit.error;
  const records = discovered.map(recordFrom);
  const seen = new Set<string>();
  const hashes = input.hashes ?? new EntryHashes();
  records.forEach((record, i) => {
    admit(record, discovered[i]!, input.config, seen);
    record.fingerprint = fingerprintOf(record, input.config, hashes);
    if (input.previous) record.outcome = "rebuilt";
  });
  const generation = new Generation(input.number, records, input.logger);
  const serving = records.filter((r) => r.admitted && r.state === "active");
  const carried = serving.filter((r) => isCarried(r, input));
  const toLoad = serving.filter((r) => !carried.includes(r));
  const loaded = (await Promise.all(toLoad.map((r) => loadOne(generation, r, input)))).filter((l): l is Loaded => l !== null);
  // a plugin that was serving and now fails (discovery, admission, load) keeps its previous instance
  const keptOld = records.filter((r) => keepsOld(r, input));
  const incumbents = [...carried, ...keptOld].map((r) => ({ plugin: r.name, adapters: input.previous!.adaptersOf(r.name), incumbent: true }));
  const claims = claimToolNames(
    [...incumbents, ...loaded.map((l) => ({ plugin: l.record.name, adapters: l.adapters }))],
    input.config,
    RESERVED_TOOL_NAMES,
  );
  for (const entry of loaded) {
    const claim = claims.get(entry.record.name)!;
    entry.record.warnings.push(...claim.warnings);
    if (!claim.conflict) {
      generation.attach(entry.record.name, entry.instance, claim.adapters, entry.slot, entry.remote);
      continue;
    }
    entry.record.state = "conflict";
    entry.record.error = claim.conflict;
    await discard(entry, input.logger);
    if (keepsOld(entry.record, input)) keptOld.push(entry.record);
  }
  for (const record of carried) {
    keepPrevious(record, input.previous!.plugin(record.name)!, "carried_over");
    generation.adopt(record.name, input.previous!);
  }
  for (const record of keptOld) {
    keepPrevious(record, input.previous!.plugin(record.name)!, "failed_kept_old");
    generation.adopt(record.name, input.previous!);
  }
  generation.seal();
  return { generation, worsened: worsenedBy(generation, input) };
}

function worsenedBy(candidate: Generation, input: BuildInput): Worsened[] {
  if (!input.previous || input.force) return [];
  const worse: Worsened[] = [];
  for (const before of input.previous.plugins) {
    if (before.state !== "active") continue;
    const after = candidate.plugin(before.name);
    if (after && byConfig(after)) continue;
    if (!after) worse.push({ plugin: before.name, why: `it is no longer present in ${input.pluginsDir}` });
    else if (after.state === "error" || after.state === "conflict") {
      worse.push({ plugin: before.name, why: after.error?.message ?? `it is in ${after.state}` });
    }
  }
  return worse;
}

/** The refusal of a candidate that would make active plugins worse, naming each and why. */
export function worsenedError(what: string, keeps: string, worsened: Worsened[]): PrxError {
  const list = worsened.map((w) => `"${w.plugin}" (${w.why})`).join("; ");
  return new PrxError("PLUGIN_RELOAD", `${what} refused, ${keeps}: it would take down ${list}`, {
    status: 409,
    hint: "fix those plugins first, or reload with force to publish anyway",
    details: { worsened },
  });
}
