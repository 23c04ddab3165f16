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
 * plugins of the same content share one while any of them is running. An entry lives only while a sandbox uses it
 * (each preparation is a use, let go with the sandbox): a plugin whose guest was stopped for being idle keeps no
 * compiled code or JS text here; its next start prepares again from the disk caches (transpiled and instrumented
 * files), which compiles but transpiles and instruments nothing.
 */
export interface PreparedComponent {
  kind: "component";
  /** Names this entry (content, memory cap, metering): a sandbox Worker evaluates the JS once per key. */
  key: string;
  meta: TranspileMeta;
  js: string;
  modules: Record<string, WebAssembly.Module>;
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
  users: number;
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
function instrumentedPathFor(cacheDir: string, bytes: Uint8Array, metering: Metering, maxPages: number): string {
  const hash = createHash("sha256").update(bytes).digest("hex");
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
    if (--entry.users === 0 && entries.get(key) === entry) entries.delete(key);
  };
}

/**
 * One use of the entry under `key`, made by `make` when no use holds it. A failed preparation is forgotten so the next
 * load retries it; another plugin sharing the failed in-flight entry prepares again so its error names it.
 */
async function use<T extends Prepared>(key: string, plugin: string, make: () => Promise<T>): Promise<ArtifactUse<T>> {
  let entry = entries.get(key);
  let made: Promise<T>;
  if (entry) {
    made = (entry.plugin === plugin ? entry.made : entry.made.catch(make)) as Promise<T>;
  } else {
    made = make();
    const created = { plugin, made: made as Promise<Prepared>, users: 0 };
    entries.set(key, (entry = created));
    made.catch(() => {
      if (entries.get(key) === created) entries.delete(key);
    });
  }
  const done = lettingGo(key, entry);
  try {
    return { prepared: await made, done };
  } catch (error) {
    done();
    throw error;
  }
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
    const modules: Record<string, WebAssembly.Module> = {};
    await Promise.all(
      transpiled.meta.files
        .filter((file) => file.endsWith(".wasm"))
        .map(async (file) => {
          const bytes = readFileSync(join(transpiled.dir, file));
          const instrumentedPath = instrumentedPathFor(cacheDir, bytes, metering, maxPages);
          modules[file] = await compile(bytes, { maxPages, metering, instrumentedPath }, `plugin ${plugin} (${file})`);
        }),
    );
    return { kind: "component", key: createHash("sha256").update(key).digest("hex"), meta: transpiled.meta, js, modules };
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
  const maxPages = maxPagesFor(maxMemoryMb);
  const hash = createHash("sha256").update(wasm).digest("hex");
  const instrumentedPath = instrumentedPathFor(cacheDir, wasm, metering, maxPages);
  return use(`module\0${cacheDir}\0${hash}\0${maxPages}\0${metering}`, plugin, async () => ({
    kind: "module",
    module: await compile(wasm, { maxPages, metering, instrumentedPath }, `plugin ${plugin}`),
  }));
}
