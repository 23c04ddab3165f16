import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import jcoPkg from "@bytecodealliance/jco-transpile/package.json" with { type: "json" };
import { z } from "zod";
import { PrxError } from "../../core/errors.ts";
import { CapabilityTypes } from "../types.ts";
import { REQUIRED_EXPORTS } from "./guest/types.ts";
import { asyncImportNames } from "./host/index.ts";
import type { KvPlacement } from "./protocol.ts";
import { exportsInterfaceNames, PLUGIN_PACKAGE } from "./contract-names.ts";
import { readCacheFile, writeCacheFile } from "./cache-file.ts";
import { componentShape, type ComponentShape } from "./transpile-shape.ts";
import { type ComponentInterfaces, checkInterfaceVersions, interfacesFromWit } from "./wit.ts";

/**
 * jco's names of every function of every prx:plugin export interface (`prx:plugin/tool-exports@0.1.0#execute`, and
 * unversioned): all are JSPI-promising in a component importing an async host function, so any of them may call it.
 */
export function asyncExportNames(): string[] {
  return CapabilityTypes.flatMap((type) =>
    REQUIRED_EXPORTS[type].flatMap((fn) => exportsInterfaceNames(type).map((iface) => `${iface}#${fn}`)),
  );
}

export const TRANSPILED_MODULE_NAME = "component";
/** Bump when the cached layout or the options below (or how they are chosen per component) change. */
const CACHE_FORMAT = 3;

export const TranspileMetaSchema = z.object({
  format: z.literal(CACHE_FORMAT),
  /** Interfaces the component imports and exports, as named in its WIT (with versions). */
  interfaces: z.object({ imports: z.array(z.string()), exports: z.array(z.string()) }),
  /** Top-level export names as mapped by jco (camelCase). */
  exportNames: z.array(z.string()),
  /** Functions (jco's camelCase names) of each exported interface, from jco's typings: `prx:plugin/...` -> names. */
  interfaceFunctions: z.record(z.string(), z.array(z.string())),
  files: z.array(z.string()),
});
export type TranspileMeta = z.infer<typeof TranspileMetaSchema>;

export interface TranspiledComponent {
  dir: string;
  meta: TranspileMeta;
  /** True when this call ran jco (cache miss). */
  transpiled: boolean;
}

let transpiles = 0;
/** How many times this process ran jco's transpiler (tests and benchmarks assert cache hits with it). */
export function transpileCount(): number {
  return transpiles;
}

function transpileOptions(asyncExports: string[], kv: KvPlacement) {
  return {
    name: TRANSPILED_MODULE_NAME,
    instantiation: "async" as const,
    asyncMode: "jspi" as const,
    asyncImports: asyncImportNames(kv),
    asyncExports,
    noComponentErrorWrapping: false,
    base64Cutoff: 0,
  };
}

/** What besides the component the output is made from: jco's version, the cache layout and the options. */
function transpilerKey(kv: KvPlacement): string {
  return `\0jco-transpile@${jcoPkg.version}\0format=${CACHE_FORMAT}\0${JSON.stringify(transpileOptions(asyncExportNames(), kv))}`;
}

/** The transpiled component's cache key: its bytes, jco's version and the options (they differ with `kv`). */
export function cacheKey(wasm: Uint8Array, kv: KvPlacement): string {
  return createHash("sha256").update(wasm).update(transpilerKey(kv)).digest("hex");
}

/**
 * `<cacheDir>/wasm-shapes/<key>.json`: for a component shape (transpile-shape.ts), the cached output of a component
 * of that shape, and which of its files are which core module of the component, copied as jco wrote them.
 */
const ShapeRecordSchema = z.object({
  format: z.literal(CACHE_FORMAT),
  /** The cached output's folder name under `<cacheDir>/wasm/`. */
  source: z.string().regex(/^[0-9a-f]{64}$/),
  /** Output file -> index of the core module it is (in componentShape's order). */
  modules: z.record(z.string(), z.number().int().nonnegative()),
});

function shapeRecordPath(cacheDir: string, shape: ComponentShape, kv: KvPlacement): string {
  return join(cacheDir, "wasm-shapes", `${createHash("sha256").update(shape.digest).update(transpilerKey(kv)).digest("hex")}.json`);
}

/** Files written to a temporary folder, then renamed into place (another process may have cached it first). */
function writeCacheDir(dir: string, files: Record<string, Uint8Array | string>, meta: TranspileMeta): void {
  const tmp = `${dir}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(dirname(join(tmp, file)), { recursive: true });
    writeFileSync(join(tmp, file), content);
  }
  writeFileSync(join(tmp, "meta.json"), JSON.stringify(meta));
  try {
    renameSync(tmp, dir);
  } catch {
    // another process cached the same component first: theirs is identical
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The output of a component of the same shape transpiled before, with this component's core modules in place of
 * that one's; null when there is none (or its files are gone).
 */
function fromShape(shape: ComponentShape, cacheDir: string, kv: KvPlacement, dir: string): TranspileMeta | null {
  const recordPath = shapeRecordPath(cacheDir, shape, kv);
  const record = readCacheFile(recordPath, ShapeRecordSchema);
  if (!record) return null;
  const sourceDir = join(cacheDir, "wasm", record.source);
  const metaPath = join(sourceDir, "meta.json");
  const meta = readCacheFile(metaPath, TranspileMetaSchema);
  if (!meta) return null;
  const files: Record<string, Uint8Array> = {};
  for (const file of meta.files) {
    const index = record.modules[file];
    if (index !== undefined) {
      const module = shape.modules[index];
      if (!module) return null;
      files[file] = module;
    } else {
      const path = join(sourceDir, file);
      if (!existsSync(path)) return null;
      files[file] = readFileSync(path);
    }
  }
  writeCacheDir(dir, files, meta);
  return meta;
}

/**
 * Remember which output files are the component's core modules as jco wrote them. Only when every core module is
 * one file, byte for byte: a module jco had changed would be copied unchanged from the next component otherwise.
 */
function recordShape(shape: ComponentShape, cacheDir: string, kv: KvPlacement, key: string, files: Record<string, Uint8Array | string>): void {
  const modules: Record<string, number> = {};
  const matched = new Set<number>();
  for (const [file, content] of Object.entries(files)) {
    if (!file.endsWith(".wasm") || typeof content === "string") continue;
    const index = shape.modules.findIndex((module) => module.length === content.length && Buffer.compare(module, content) === 0);
    if (index < 0) continue;
    modules[file] = index;
    matched.add(index);
  }
  if (matched.size !== shape.modules.length) return;
  writeCacheFile(shapeRecordPath(cacheDir, shape, kv), JSON.stringify(ShapeRecordSchema.parse({ format: CACHE_FORMAT, source: key, modules })));
}

/**
 * Transpile a component with jco, or reuse `<cacheDir>/wasm/<key>/` when an earlier run did it. `kv`: where its
 * sandbox's kv is served (a local one is lowered sync; host/index.ts).
 */
export async function transpileCached(
  plugin: string,
  wasm: Uint8Array,
  cacheDir: string,
  kv: KvPlacement,
): Promise<TranspiledComponent> {
  const key = cacheKey(wasm, kv);
  const dir = join(cacheDir, "wasm", key);
  const metaPath = join(dir, "meta.json");
  if (existsSync(metaPath)) {
    const cached = readCacheFile(metaPath, TranspileMetaSchema);
    if (cached) {
      checkInterfaceVersions(plugin, cached.interfaces);
      return { dir, meta: cached, transpiled: false };
    }
    rmSync(dir, { recursive: true, force: true });
  }
  // a rebuild of a plugin (`prx plugins dev`) changes its core modules' contents alone: no jco run for it
  const shape = componentShape(wasm);
  const reshaped = shape ? fromShape(shape, cacheDir, kv, dir) : null;
  if (reshaped) {
    checkInterfaceVersions(plugin, reshaped.interfaces);
    return { dir, meta: reshaped, transpiled: false };
  }
  const { transpileBytes } = await import("@bytecodealliance/jco-transpile");
  const { componentWit } = await import("@bytecodealliance/jco-transpile/wasm-tools");
  let interfaces: ComponentInterfaces;
  try {
    interfaces = interfacesFromWit(await componentWit(wasm));
  } catch (error) {
    throw new PrxError(
      "PLUGIN_LOAD",
      `plugin ${plugin}: not a valid WebAssembly component: ${(error as Error).message}`,
      {
        cause: error,
        hint: "build the plugin with a component toolchain (cargo component, jco componentize) or declare a core module",
      },
    );
  }
  checkInterfaceVersions(plugin, interfaces);
  const exportsPresent = needsAsyncExports(interfaces, kv)
    ? asyncExportNames().filter((name) => interfaces.exports.includes(name.split("#")[0]!))
    : [];
  let result: Awaited<ReturnType<typeof transpileBytes>>;
  try {
    result = await transpileBytes(wasm, transpileOptions(exportsPresent, kv));
  } catch (error) {
    throw new PrxError(
      "PLUGIN_LOAD",
      `plugin ${plugin}: jco could not transpile the component: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  transpiles++;
  const files = Object.keys(result.files).filter((f) => !f.endsWith(".d.ts"));
  const meta: TranspileMeta = {
    format: CACHE_FORMAT,
    interfaces,
    exportNames: result.exports.map(([n]) => n),
    interfaceFunctions: interfaceFunctionsFromTypings(result.files),
    files,
  };
  const written = Object.fromEntries(files.map((file) => [file, result.files[file]!]));
  writeCacheDir(dir, written, meta);
  if (shape) recordShape(shape, cacheDir, kv, key, written);
  return { dir, meta, transpiled: true };
}

/**
 * Whether the component imports a host function lowered async (JSPI-suspending, asyncImportNames): only then must
 * its exports be promising. Without one, jco's sync export runs the call in one go: a promising export costs each
 * call an async task (its entry, suspension bookkeeping and the promise chain around the guest) for nothing. The
 * choice follows from the component's bytes and `kv`, which its cache key already covers.
 */
export function needsAsyncExports(interfaces: ComponentInterfaces, kv: KvPlacement): boolean {
  const imported = new Set(interfaces.imports);
  return asyncImportNames(kv).some((name) => imported.has(name.split("#")[0]!));
}

/**
 * jco writes one `interfaces/<name>.d.ts` per interface, headed `/** @module Interface ns:pkg/iface@v **\/` and
 * declaring `export function name(...)` per function; the exported ones are what a capability can be served from.
 */
export function interfaceFunctionsFromTypings(files: Record<string, Uint8Array | string>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [path, content] of Object.entries(files)) {
    if (!path.startsWith("interfaces/") || !path.endsWith(".d.ts")) continue;
    const text = typeof content === "string" ? content : new TextDecoder().decode(content);
    const name = /@module Interface (\S+) \*\*/.exec(text)?.[1];
    if (!name?.startsWith(`${PLUGIN_PACKAGE}/`)) continue;
    out[name] = [...text.matchAll(/^export function (\w+)\(/gm)].map((m) => m[1]!);
  }
  return out;
}
