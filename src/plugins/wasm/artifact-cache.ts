import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PrxError } from "../../core/errors.ts";
import { WASM_PAGE_BYTES } from "./limits.ts";
import { capModuleMemory } from "./memory-cap.ts";
import { instrumentCached, instrumentedName } from "./instrument-cache.ts";
import type { Metering } from "./instrument/plan.ts";
import type { KvPlacement } from "./protocol.ts";
import { cacheKey, TRANSPILED_MODULE_NAME, type TranspileMeta, transpileCached } from "./transpile.ts";

/**
 * Main-thread, in-memory cache of what a sandbox needs to instantiate a plugin: for a component its transpiled JS
 * text and its core modules compiled, for a core module the compiled module. Every core module is memory-capped,
 * then instrumented (instrument/: interrupt checks and fuel, FUEL.md; the rewritten bytes are cached on disk).
 * WebAssembly.Module objects are structured-cloneable, so every sandbox Worker gets the compiled code by
 * postMessage instead of reading and compiling files. Entries are keyed by content hash, memory cap and metering:
 * plugins of the same content share one while any of them is running. A component's core modules are entries of their
 * own (keyed as prepareModule keys a plugin's module), each used by the component's entry: a rebuilt component whose
 * other modules did not change (a kit plugin's engine beside its snapshot, `prx plugins dev`) compiles only the
 * ones that did while the previous build still runs. An entry lives only while a sandbox uses it
 * (each preparation is a use, let go with the sandbox): a plugin whose guest was stopped for being idle keeps no
 * compiled code or JS text here; its next start prepares again from the disk caches (transpiled and instrumented
 * files), which compiles but transpiles and instruments nothing.
 */
export interface PreparedComponent {
  kind: "component";
  /** Names this entry (content, memory cap, metering): a sandbox Worker holds its JS text and modules under it. */
  key: string;
  meta: TranspileMeta;
  js: string;
  /** The JS text's SHA-256 (a sandbox Worker evaluates each script once). */
  script: string;
  modules: Record<string, WebAssembly.Module>;
  /** Lets go of the core modules' entries this one uses (called once, when this entry is dropped). */
  release(): void;
}

export interface PreparedModule {
  kind: "module";
  module: WebAssembly.Module;
}

type Prepared = PreparedComponent | PreparedModule;

/** A prepared artifact and the function that lets go of this use of it (idempotent; the last use drops the entry). */
export interface ArtifactUse<T extends Prepared> {
  prepared: T;
  done(): void;
}

interface Entry {
  plugin: string;
  made: Promise<Prepared>;
  /** What `made` resolved to, once it did. */
  ready?: Prepared;
  users: number;
}

/** Let go of the entries a prepared artifact uses (a component's of its core modules). */
function releaseUses(prepared: Prepared): void {
  if (prepared.kind === "component") prepared.release();
}

/** A dropped entry lets go of the entries it uses, now or once it is made. */
function releaseDropped(entry: Entry): void {
  if (entry.ready) return releaseUses(entry.ready);
  entry.made.then(
    releaseUses,
    () => {}, // a failed preparation holds nothing: it let go of what it had taken
  );
}

const entries = new Map<string, Entry>();
let compiles = 0;

/** How many times this process compiled a plugin's core modules (tests and benchmarks assert cache hits). */
export function compileCount(): number {
  return compiles;
}

/** Entries held now: the artifacts some sandbox (or a preparation in flight) uses. */
export function cachedArtifactCount(): number {
  return entries.size;
}

export function maxPagesFor(maxMemoryMb: number): number {
  return Math.floor((maxMemoryMb * 1024 * 1024) / WASM_PAGE_BYTES);
}

/** Exact fuel ("full") for a plugin with max_fuel; without one, checks only ("interrupt", cheaper). */
export function meteringFor(maxFuel: number | null): Metering {
  return maxFuel === null ? "interrupt" : "full";
}

/** What a core module is compiled with: its memory cap, its metering, where its instrumented bytes are cached. */
interface CompileOptions {
  maxPages: number;
  metering: Metering;
  instrumentedPath: string;
}

/** The instrumented bytes' file name: the pass's version, the metering, the memory cap (it is compiled in). */
function instrumentedFile(metering: Metering, maxPages: number): string {
  return `${instrumentedName(metering)}-${maxPages}p`;
}

/**
 * Where a core module's instrumented bytes are kept: under its content hash, whether it is a plugin of its own or one
 * of a component's modules, so a rebuilt component whose other modules did not change (a kit plugin's engine beside
 * its snapshot) instruments only the ones that did.
 */
function instrumentedPath(cacheDir: string, hash: string, metering: Metering, maxPages: number): string {
  return join(cacheDir, "wasm-modules", hash, `${instrumentedFile(metering, maxPages)}.wasm`);
}

/**
 * Count one more use of `entry`; the returned function lets go of it. Not inside use(): an async function's closures
 * keep its whole frame, which holds the component's bytes through `make`.
 */
function lettingGo(key: string, entry: Entry): () => void {
  entry.users++;
  let used = true;
  return () => {
    if (!used) return;
    used = false;
    if (--entry.users === 0 && entries.get(key) === entry) {
      entries.delete(key);
      releaseDropped(entry);
    }
  };
}

/**
 * `shared`, and (once) letting go of what `own` uses: an artifact made again by one use alone. Not inside use(), for
 * the reason lettingGo is not.
 */
function lettingGoOwn(shared: () => void, own: Prepared): () => void {
  let held = true;
  return () => {
    shared();
    if (!held) return;
    held = false;
    releaseUses(own);
  };
}

/**
 * One use of the entry under `key`, made by `make` when no use holds it. A failed preparation is forgotten so the next
 * load retries it; another plugin sharing the failed in-flight entry prepares again so its error names it.
 */
async function use<T extends Prepared>(key: string, plugin: string, make: () => Promise<T>): Promise<ArtifactUse<T>> {
  let entry = entries.get(key);
  let made: Promise<T>;
  // made again by this use alone (the shared preparation failed): what it uses goes with this use
  let own: T | undefined;
  if (entry) {
    const inFlight = entry.made as Promise<T>;
    made = entry.plugin === plugin ? inFlight : inFlight.catch(async () => (own = await make()));
  } else {
    made = make();
    const created: Entry = { plugin, made: made as Promise<Prepared>, users: 0 };
    entries.set(key, (entry = created));
    made.then(
      (prepared) => {
        created.ready = prepared;
      },
      () => {
        if (entries.get(key) === created) entries.delete(key);
      },
    );
  }
  const shared = lettingGo(key, entry);
  try {
    const prepared = await made;
    return { prepared, done: own ? lettingGoOwn(shared, own) : shared };
  } catch (error) {
    shared();
    throw error;
  }
}

/** The key of a core module's entry: its content hash, memory cap and metering, per cache folder. */
function moduleKey(cacheDir: string, hash: string, maxPages: number, metering: Metering): string {
  return `module\0${cacheDir}\0${hash}\0${maxPages}\0${metering}`;
}

async function compile(bytes: Uint8Array, options: CompileOptions, where: string): Promise<WebAssembly.Module> {
  // capped first: instrumentation moves the memories (and their capped maximum) into imports
  const capped = capModuleMemory(bytes, options.maxPages, where);
  const instrumented = instrumentCached(capped, where, options.metering, options.instrumentedPath);
  compiles++;
  try {
    return await WebAssembly.compile(instrumented);
  } catch (error) {
    throw new PrxError("PLUGIN_LOAD", `${where} does not compile: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * A use of each of a component's core modules (the transpiled output's `files` in `dir`) and the function that lets
 * go of them all; none is held when one fails. Not inside prepareComponent: its closures would keep the component's
 * bytes for as long as the entry lives.
 */
async function componentModules(
  plugin: string,
  dir: string,
  files: string[],
  cacheDir: string,
  maxPages: number,
  metering: Metering,
): Promise<{ modules: Record<string, WebAssembly.Module>; release: () => void }> {
  const modules: Record<string, WebAssembly.Module> = {};
  const uses: ArtifactUse<PreparedModule>[] = [];
  const release = () => {
    for (const taken of uses.splice(0)) taken.done();
  };
  const settled = await Promise.allSettled(
    files.map(async (file) => {
      const taken = await moduleUse(plugin, readFileSync(join(dir, file)), cacheDir, maxPages, metering, `plugin ${plugin} (${file})`);
      uses.push(taken);
      modules[file] = taken.prepared.module;
    }),
  );
  const failed = settled.find((outcome) => outcome.status === "rejected");
  if (failed) {
    release();
    throw failed.reason;
  }
  return { modules, release };
}

/**
 * Transpile and instrument (disk caches; each core module's instrumented bytes under its own content hash, as
 * prepareModule keeps them) and compile a component once per content, memory cap, metering and kv placement (where
 * the sandbox's kv is served decides how its imports are lowered).
 */
export function prepareComponent(
  plugin: string,
  wasm: Uint8Array,
  cacheDir: string,
  maxMemoryMb: number,
  metering: Metering,
  kv: KvPlacement,
): Promise<ArtifactUse<PreparedComponent>> {
  const maxPages = maxPagesFor(maxMemoryMb);
  const key = `component\0${cacheDir}\0${cacheKey(wasm, kv)}\0${maxPages}\0${metering}`;
  return use(key, plugin, async () => {
    const transpiled = await transpileCached(plugin, wasm, cacheDir, kv);
    const js = readFileSync(join(transpiled.dir, `${TRANSPILED_MODULE_NAME}.js`), "utf8");
    const files = transpiled.meta.files.filter((file) => file.endsWith(".wasm"));
    const { modules, release } = await componentModules(plugin, transpiled.dir, files, cacheDir, maxPages, metering);
    const script = createHash("sha256").update(js).digest("hex");
    return { kind: "component", key: createHash("sha256").update(key).digest("hex"), meta: transpiled.meta, js, script, modules, release };
  });
}

/**
 * Instrument (disk cache: `<cacheDir>/wasm-modules/<sha256>/instrumented-v<N>-<metering>-<pages>p.wasm`) and
 * compile a core module once per content, memory cap and metering.
 */
export function prepareModule(
  plugin: string,
  wasm: Uint8Array,
  cacheDir: string,
  maxMemoryMb: number,
  metering: Metering,
): Promise<ArtifactUse<PreparedModule>> {
  return moduleUse(plugin, wasm, cacheDir, maxPagesFor(maxMemoryMb), metering, `plugin ${plugin}`);
}

/** One use of a core module's entry (a plugin's module, or one of a component's), compiled when no use holds it. */
function moduleUse(
  plugin: string,
  wasm: Uint8Array,
  cacheDir: string,
  maxPages: number,
  metering: Metering,
  where: string,
): Promise<ArtifactUse<PreparedModule>> {
  const hash = createHash("sha256").update(wasm).digest("hex");
  return use(moduleKey(cacheDir, hash, maxPages, metering), plugin, async () => ({
    kind: "module",
    module: await compile(wasm, { maxPages, metering, instrumentedPath: instrumentedPath(cacheDir, hash, metering, maxPages) }, where),
  }));
}
