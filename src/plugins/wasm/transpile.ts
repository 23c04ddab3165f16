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
import { type ComponentInterfaces, checkInterfaceVersions, interfacesFromWit } from "./wit.ts";

/**
 * jco's names of every function of every prx:plugin export interface (`prx:plugin/tool-exports@0.1.0#execute`, and
 * unversioned): all are JSPI-promising, so any of them may call an async host import.
 */
export function asyncExportNames(): string[] {
  return CapabilityTypes.flatMap((type) =>
    REQUIRED_EXPORTS[type].flatMap((fn) => exportsInterfaceNames(type).map((iface) => `${iface}#${fn}`)),
  );
}

export const TRANSPILED_MODULE_NAME = "component";
/** Bump when the cached layout or the options below change. */
const CACHE_FORMAT = 2;

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

/** The transpiled component's cache key: its bytes, jco's version and the options (they differ with `kv`). */
export function cacheKey(wasm: Uint8Array, kv: KvPlacement): string {
  const hash = createHash("sha256");
  hash.update(wasm);
  hash.update(
    `\0jco-transpile@${jcoPkg.version}\0format=${CACHE_FORMAT}\0${JSON.stringify(transpileOptions(asyncExportNames(), kv))}`,
  );
  return hash.digest("hex");
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
  const dir = join(cacheDir, "wasm", cacheKey(wasm, kv));
  const metaPath = join(dir, "meta.json");
  if (existsSync(metaPath)) {
    const parsed = TranspileMetaSchema.safeParse(JSON.parse(readFileSync(metaPath, "utf8")));
    if (parsed.success) {
      checkInterfaceVersions(plugin, parsed.data.interfaces);
      return { dir, meta: parsed.data, transpiled: false };
    }
    rmSync(dir, { recursive: true, force: true });
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
  const exportsPresent = asyncExportNames().filter((name) => interfaces.exports.includes(name.split("#")[0]!));
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
  const tmp = `${dir}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  for (const file of files) {
    mkdirSync(dirname(join(tmp, file)), { recursive: true });
    writeFileSync(join(tmp, file), result.files[file]!);
  }
  writeFileSync(join(tmp, "meta.json"), JSON.stringify(meta));
  try {
    renameSync(tmp, dir);
  } catch {
    // another process cached the same component first: theirs is identical
    rmSync(tmp, { recursive: true, force: true });
  }
  return { dir, meta, transpiled: true };
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
