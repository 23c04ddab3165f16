import type { Config } from "../config/schema.ts";
import { PrxError } from "../core/errors.ts";
import { RESERVED_TOOL_NAMES } from "../tools/builtins/names.ts";
import { admit, recordFrom, type SeenNames } from "./admission.ts";
import type { DiscoveredPlugin } from "./discovered.ts";
import { discoverPlugins, isOverLimit } from "./discovery.ts";
import { EntryHashes, fingerprintOf } from "./fingerprint.ts";
import type { DiscoveryCache } from "./discovery-cache.ts";
import { Generation, type PluginRecord } from "./generation.ts";
import { discard, loadOne, type LoadContext, type Loaded } from "./loading.ts";

/**
 * How long a build waits for plugins still loading before it is published without them: they are `starting` (or,
 * rebuilt while their previous instance served, `rebuilding`) and join with the next generation once ready. A plugin
 * named in a reload is always waited for.
 */
export const PLUGIN_JOIN_WAIT_MS = 2_000;
import { claimToolNames } from "./tool-claims.ts";
import type { ToolAdapter } from "./adapters/types.ts";

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
  /** What earlier builds read from unchanged plugin files (the runtime keeps one: discovery-cache.ts). */
  discovery?: DiscoveryCache;
  /** The generation serving now: its active plugins whose inputs did not change are carried over, not rebuilt. */
  previous?: Generation;
  /** Rebuild these plugins even when unchanged (a named reload); "all" rebuilds every plugin (a full reload). */
  rebuild?: "all" | ReadonlySet<string>;
  /**
   * Publish what the directory holds even where it is worse: a plugin that fails to rebuild is published failed
   * instead of keeping its previous instance, and nothing counts as worse.
   */
  force?: boolean;
  /** Default PLUGIN_JOIN_WAIT_MS; Infinity waits for every plugin (one-shot commands, which never see a join). */
  joinAfterMs?: number;
}

/** A plugin published before it was ready: `published` is its record in the candidate, `load` its load going on. */
export interface LatePlugin {
  published: PluginRecord;
  /** The record the load fills in (its error when it fails). */
  record: PluginRecord;
  load: Promise<Loaded | null>;
  /** Its previous instance serves meanwhile (and goes on serving if the load fails). */
  keepsOld: boolean;
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
  /** Plugins still loading when the candidate was built: the runtime joins them once they are ready. */
  late: LatePlugin[];
}

function isCarried(record: PluginRecord, input: BuildInput): boolean {
  const previous = input.previous;
  if (!previous || input.rebuild === "all" || input.rebuild?.has(record.name)) return false;
  const before = previous.plugin(record.name);
  return before?.state === "active" && before.fingerprint === record.fingerprint && previous.instance(record.name) !== undefined;
}

/**
 * The previous generation's record of an active plugin that is carried over because nothing it was built from
 * changed since (EntryHashes.unchanged: the same discovery, the same config tables), found without admitting or
 * fingerprinting it again: what makes carrying a plugin over cost a reload next to nothing. Undefined: decide the
 * long way (admission, fingerprint, isCarried).
 */
function unchangedSincePrevious(found: DiscoveredPlugin, input: BuildInput, hashes: EntryHashes, seen: SeenNames): PluginRecord | undefined {
  const previous = input.previous;
  if (!previous || !found.ok || input.rebuild === "all" || input.rebuild?.has(found.name) || seen.has(found.name)) return undefined;
  const before = previous.plugin(found.name);
  if (before?.state !== "active" || before.fingerprint === null || previous.instance(found.name) === undefined) return undefined;
  return hashes.unchanged(found.name, found, input.config) === before.fingerprint ? before : undefined;
}

/**
 * The plugins serving on from the previous generation that serve a tool name a loaded plugin claims: the only
 * incumbents the claims can concern (an incumbent keeps its names; two incumbents never share one). Found through
 * the previous generation's tool index, so the plugins carried over are not walked.
 */
function rivalIncumbents(servesOld: (name: string) => boolean, loaded: readonly Loaded[], input: BuildInput): string[] {
  const previous = input.previous;
  if (!previous || loaded.length === 0) return [];
  const rivals = new Set<string>();
  for (const { record, adapters } of loaded) {
    const renames = input.config.plugins[record.name]?.tool_names ?? {};
    for (const adapter of adapters) {
      if (adapter.type !== "tool") continue;
      const name = (adapter as ToolAdapter).spec.name;
      const holder = previous.tool(renames[name] ?? name)?.plugin;
      if (holder !== undefined && holder !== record.name && servesOld(holder)) rivals.add(holder);
    }
  }
  return [...rivals];
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

const isNamed = (record: PluginRecord, input: BuildInput) => input.rebuild instanceof Set && input.rebuild.has(record.name);

/** It was serving, is not the one the reload names, and nothing forces the directory's state: its old instance may serve on. */
function mayServeOld(record: PluginRecord, input: BuildInput): boolean {
  const previous = input.previous;
  if (!previous || input.force || isNamed(record, input)) return false;
  return previous.plugin(record.name)?.state === "active" && previous.instance(record.name) !== undefined;
}

/** A rebuilt plugin that failed, was serving before, and may keep serving its previous instance. */
function keepsOld(record: PluginRecord, input: BuildInput): boolean {
  if (record.state === "active" || record.state === "starting" || byConfig(record)) return false;
  return mayServeOld(record, input);
}

const LATE: unique symbol = Symbol("late");

/** Wait for every load, but past `joinAfterMs` only for the named plugins; the rest are LATE. */
async function loadAll(generation: Generation, toLoad: PluginRecord[], input: BuildInput) {
  const loads = toLoad.map((record) => ({ record, promise: loadOne(generation, record, input) }));
  const waitMs = input.joinAfterMs ?? PLUGIN_JOIN_WAIT_MS;
  if (!Number.isFinite(waitMs)) return Promise.all(loads.map(async (load) => ({ ...load, outcome: await load.promise })));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), waitMs)));
  const settled: (Loaded | null | typeof LATE)[] = await Promise.all(
    loads.map(({ record, promise }) => (isNamed(record, input) ? promise : Promise.race([promise, deadline]))),
  );
  clearTimeout(timer);
  return loads.map((load, i) => ({ ...load, outcome: settled[i] as Loaded | null | typeof LATE }));
}

/** The record a late plugin is published with; its previous instance is adopted when it may serve on. */
function publishLate(records: PluginRecord[], record: PluginRecord, load: Promise<Loaded | null>, input: BuildInput): LatePlugin {
  const keepsOld = mayServeOld(record, input);
  const published: PluginRecord = keepsOld
    ? { ...input.previous!.plugin(record.name)!, outcome: "rebuilding", reloadError: null }
    : { ...record, state: "starting", error: null, warnings: [...record.warnings] };
  records[records.indexOf(record)] = published;
  return { published, record, load, keepsOld };
}

/**
 * Build a complete candidate generation: discover, admit, then load each plugin that must be (re)built and carry
 * over the previous generation's live instance of every active plugin whose inputs (fingerprint.ts) did not change.
 * Individual plugin failures become error records or keep the previous instance (`failed_kept_old`); only a
 * failure of discovery as a whole throws. Nothing of `previous` changes until the candidate is published.
 */
export async function buildGeneration(input: BuildInput): Promise<BuildResult> {
  const discovered = input.discovered ?? discoverPlugins(input.pluginsDir, input.discovery);
  const previous = input.previous;
  // the same listing and the same config as the previous build: only what the previous build left unsettled, and the
  // plugins the reload names, are looked at again; every other record is the previous one, carried over as it is
  const before = previous?.sources;
  const moved = before && before.config === input.config && input.rebuild !== "all" ? changedPositions(previous!, discovered, input) : undefined;
  const same = moved !== undefined;
  const overLimit = same ? before!.overLimit : discovered.find(isOverLimit);
  if (input.refuseOverLimit && overLimit && !overLimit.ok) throw overLimit.error;
  const hashes = input.hashes ?? new EntryHashes();
  /** The records decided anew (admitted, fingerprinted): only these can be loaded, fail, keep their old instance or worsen. */
  const fresh = new Set<PluginRecord>();
  const carried: PluginRecord[] = [];
  const decide = (found: DiscoveredPlugin, seen: SeenNames): PluginRecord => {
    const kept = unchangedSincePrevious(found, input, hashes, seen);
    if (kept) {
      // the previous record's view as it is (admission, permissions, fingerprint): nothing it came from changed; a
      // record carried over before is the very object again, so a reload allocates nothing for the plugins it carries
      seen.add(kept.name);
      const record: PluginRecord = kept.outcome === "carried_over" && kept.reloadError === null ? kept : { ...kept, outcome: "carried_over", reloadError: null };
      carried.push(record);
      return record;
    }
    const record = recordFrom(found);
    admit(record, found, input.config, seen);
    record.fingerprint = fingerprintOf(record, input.config, hashes, found);
    if (previous) record.outcome = "rebuilt";
    fresh.add(record);
    return record;
  };
  let records: PluginRecord[];
  let looked: Iterable<number>;
  if (same) {
    const again = new Set([...previous!.unsettled, ...moved]);
    for (const name of input.rebuild ?? []) {
      const at = previous!.position(name);
      if (at !== undefined) again.add(at);
    }
    records = previous!.plugins.slice();
    // a name is taken when a record before it has it (the records sit where they sat in the previous generation)
    for (const at of again) records[at] = decide(discovered[at]!, { has: (name) => (previous!.position(name) ?? at) < at, add: () => undefined });
    looked = again;
  } else {
    const seen = new Set<string>();
    records = discovered.map((found) => decide(found, seen));
    looked = records.keys();
  }
  const generation = new Generation(input.number, records, input.logger);
  generation.sources = { discovered, config: input.config, overLimit };
  if (same) generation.adoptIndex(previous!);
  const serving = [...fresh].filter((r) => r.admitted && r.state === "active");
  const carriedFresh = serving.filter((r) => isCarried(r, input));
  carried.push(...carriedFresh);
  const toLoad = serving.filter((r) => !carriedFresh.includes(r));
  const loaded: Loaded[] = [];
  const late: LatePlugin[] = [];
  for (const { record, promise, outcome } of await loadAll(generation, toLoad, input)) {
    if (outcome === LATE) {
      const plugin = publishLate(records, record, promise, input);
      fresh.add(plugin.published);
      late.push(plugin);
    } else if (outcome !== null) loaded.push(outcome as Loaded);
  }
  // a plugin that was serving and now fails (discovery, admission, load) keeps its previous instance
  const keptOld = [...fresh].filter((r) => keepsOld(r, input));
  /** The fresh records' plugins whose previous instance serves on in the candidate (a record not fresh serves on). */
  const oldServing = new Set([...carriedFresh, ...keptOld, ...late.filter((l) => l.keepsOld).map((l) => l.published)].map((r) => r.name));
  const servesOld = (name: string) => {
    const record = generation.plugin(name);
    return record !== undefined && (!fresh.has(record) || oldServing.has(name));
  };
  const incumbents = rivalIncumbents(servesOld, loaded, input).map((name) => ({ plugin: name, adapters: previous!.adaptersOf(name), incumbent: true }));
  const claims = claimToolNames(
    [...incumbents, ...loaded.map((l) => ({ plugin: l.record.name, adapters: l.adapters }))],
    input.config,
    RESERVED_TOOL_NAMES,
  );
  const attaching: Loaded[] = [];
  for (const entry of loaded) {
    const claim = claims.get(entry.record.name)!;
    entry.record.warnings.push(...claim.warnings);
    if (!claim.conflict) {
      attaching.push({ ...entry, adapters: claim.adapters });
      continue;
    }
    entry.record.state = "conflict";
    entry.record.error = claim.conflict;
    await discard(entry, input.logger);
    if (keepsOld(entry.record, input)) {
      keptOld.push(entry.record);
      oldServing.add(entry.record.name);
    }
  }
  for (const record of carriedFresh) keepPrevious(record, previous!.plugin(record.name)!, "carried_over");
  for (const record of keptOld) keepPrevious(record, previous!.plugin(record.name)!, "failed_kept_old");
  if (previous) {
    // what the previous generation held and the candidate does not serve: among the fresh records' plugins, unless
    // the listing changed (a plugin removed or renamed)
    const candidates = same ? [...fresh].map((r) => r.name) : previous.heldNames();
    generation.carryFrom(previous, candidates.filter((name) => previous.instance(name) !== undefined && !servesOld(name)));
  }
  for (const entry of attaching) generation.attach(entry.record.name, entry.instance, entry.adapters, entry.slot, entry.remote);
  generation.seal();
  generation.unsettled = [...looked].filter((at) => !settled(records[at]!, generation));
  const worsened = worsenedBy(generation, input, same ? [...fresh].map((r) => r.name) : undefined);
  return { generation, worsened, late };
}

/**
 * Where the listing differs from the one `previous` was built from, when discovery knows (nothing changed, or it
 * inspected a few plugin directories again) and every plugin sits where it did under the name it had. Undefined:
 * decide every record.
 */
function changedPositions(previous: Generation, discovered: readonly DiscoveredPlugin[], input: BuildInput): readonly number[] | undefined {
  const before = previous.sources!.discovered;
  const at = before === discovered ? [] : input.discovery?.changes(before, discovered);
  if (!at || discovered.length !== previous.plugins.length) return undefined;
  return at.every((i) => discovered[i]!.name === previous.plugins[i]!.name) ? at : undefined;
}

/** A record the next build can take over as it is while nothing it came from changes: carried over, serving. */
function settled(record: PluginRecord, generation: Generation): boolean {
  return record.state === "active" && record.outcome === "carried_over" && record.reloadError === null && record.fingerprint !== null && generation.instance(record.name) !== undefined;
}

/** `names`: the plugins that can be worse (default: every plugin of the previous generation). */
function worsenedBy(candidate: Generation, input: BuildInput, names?: readonly string[]): Worsened[] {
  if (!input.previous || input.force) return [];
  const worse: Worsened[] = [];
  const befores = names ? [...new Set(names)].flatMap((name) => input.previous!.plugin(name) ?? []) : input.previous.plugins;
  for (const before of befores) {
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

/**
 * A failed reload: the cause's message after `what` in the message, and the cause's hint (what to do next) kept as
 * the hint, not folded into the message.
 */
export function reloadFailed(what: string, cause: unknown): PrxError {
  const message = cause instanceof Error ? cause.message : String(cause);
  const hint = cause instanceof PrxError ? cause.hint : undefined;
  return new PrxError("PLUGIN_RELOAD", `${what}: ${message}`, { cause: cause ?? undefined, status: 400, ...(hint ? { hint } : {}) });
}
