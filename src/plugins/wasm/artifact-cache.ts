import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PrxError } from "../../core/errors.ts";
import { MAX_CACHED_ARTIFACTS, WASM_PAGE_BYTES } from "./limits.ts";
import { capModuleMemory } from "./memory-cap.ts";
import { instrumentCached, instrumentedName } from "./instrument-cache.ts";
import type { Metering } from "./instrument/plan.ts";
import { cacheKey, TRANSPILED_MODULE_NAME, type TranspileMeta, transpileCached } from "./transpile.ts";

/**
 * Main-thread, in-memory cache of what a sandbox needs to instantiate a plugin: for a component its transpiled JS
 * text and its core modules compiled, for a core module the compiled module. Every core module is memory-capped,
 * then instrumented (instrument/: interrupt checks and fuel, FUEL.md; the rewritten bytes are cached on disk).
 * WebAssembly.Module objects are structured-cloneable, so every sandbox Worker gets the compiled code by
 * postMessage instead of reading and compiling files. Entries are keyed by content hash, memory cap and metering,
 * so a reload of an unchanged plugin only hashes its bytes.
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

const entries = new Map<string, { plugin: string; made: Promise<Prepared> }>();
let compiles = 0;

/** How many times this process compiled a plugin's core modules (tests and benchmarks assert cache hits). */
export function compileCount(): number {
  return compiles;
}

/** Entries held now (at most MAX_CACHED_ARTIFACTS). */
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
 * Least recently used first out. A failed preparation is forgotten so the next load retries it; another plugin
 * sharing the failed in-flight entry prepares again so its error names it.
 */
function cached<T extends Prepared>(key: string, plugin: string, make: () => Promise<T>): Promise<T> {
  const hit = entries.get(key);
  if (hit) {
    entries.delete(key);
    entries.set(key, hit);
    return (hit.plugin === plugin ? hit.made : hit.made.catch(make)) as Promise<T>;
  }
  const made = make();
  const entry = { plugin, made };
  entries.set(key, entry);
  made.catch(() => {
    if (entries.get(key) === entry) entries.delete(key);
  });
  while (entries.size > MAX_CACHED_ARTIFACTS) entries.delete(entries.keys().next().value!);
  return made;
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

/** Transpile and instrument (disk caches) and compile a component once per content, memory cap and metering. */
export function prepareComponent(
  plugin: string,
  wasm: Uint8Array,
  cacheDir: string,
  maxMemoryMb: number,
  metering: Metering,
): Promise<PreparedComponent> {
  const maxPages = maxPagesFor(maxMemoryMb);
  const key = `component\0${cacheDir}\0${cacheKey(wasm)}\0${maxPages}\0${metering}`;
  return cached(key, plugin, async () => {
    const transpiled = await transpileCached(plugin, wasm, cacheDir);
    const js = readFileSync(join(transpiled.dir, `${TRANSPILED_MODULE_NAME}.js`), "utf8");
    const modules: Record<string, WebAssembly.Module> = {};
    await Promise.all(
      transpiled.meta.files
        .filter((file) => file.endsWith(".wasm"))
        .map(async (file) => {
          const bytes = readFileSync(join(transpiled.dir, file));
          const instrumentedPath = join(transpiled.dir, instrumentedFile(metering, maxPages), file);
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
): Promise<PreparedModule> {
  const maxPages = maxPagesFor(maxMemoryMb);
  const hash = createHash("sha256").update(wasm).digest("hex");
  const instrumentedPath = join(cacheDir, "wasm-modules", hash, `${instrumentedFile(metering, maxPages)}.wasm`);
  return cached(`module\0${cacheDir}\0${hash}\0${maxPages}\0${metering}`, plugin, async () => ({
    kind: "module",
    module: await compile(wasm, { maxPages, metering, instrumentedPath }, `plugin ${plugin}`),
  }));
}
