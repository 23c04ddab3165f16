import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PrxError } from "../../../core/errors.ts";
import { kitCacheDir } from "./cache-dir.ts";
import { EMBEDDED_QJS_ADDON, EMBEDDED_QJS_ADDON_SHA256 } from "./qjs-addon-asset.ts";

/**
 * The QuickJS build engine: componentize-qjs (QuickJS compiled to WebAssembly, pre-initialized with the plugin's
 * module by Wizer, wrapped as a component by wit-component), a native Node-API library. The compiled binary carries
 * it zstd-compressed and writes it once into the kit cache (checked against its SHA-256 before every load); run
 * from source, it comes from node_modules (a development dependency).
 */
export interface ComponentizeOptions {
  witPath: string;
  jsSource: string;
  world: string;
  /** The non-async runtime: components without the component-model async ABI. */
  sync?: boolean;
  optSize?: boolean;
}
export type Componentize = (options: ComponentizeOptions) => Promise<{ component: Uint8Array }>;

let engine: Promise<Componentize> | undefined = undefined;

/** The engine of this process (a native library loads once). */
export function qjsEngine(): Promise<Componentize> {
  return (engine ??= EMBEDDED_QJS_ADDON ? fromEmbedded(EMBEDDED_QJS_ADDON, EMBEDDED_QJS_ADDON_SHA256) : fromNodeModules());
}

async function fromNodeModules(): Promise<Componentize> {
  // a name the bundler does not follow: the binary never takes this path (it embeds the engine)
  const name = ["componentize", "qjs"].join("-");
  try {
    const mod = (await import(name)) as { componentize: Componentize };
    return mod.componentize;
  } catch (cause) {
    throw new PrxError("PLUGIN_BUILD", `the QuickJS build engine (${name}) is not installed`, {
      cause,
      hint: "run prx from source after `bun install`, or use the compiled binary (`bun run build`), which embeds it",
    });
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

async function fromEmbedded(asset: string, expected: string): Promise<Componentize> {
  const path = join(kitCacheDir(), `componentize-qjs-${expected.slice(0, 16)}.node`);
  if (!existsSync(path) || sha256(readFileSync(path)) !== expected) {
    const library = Bun.zstdDecompressSync(await Bun.file(asset).bytes());
    if (sha256(library) !== expected) {
      throw new PrxError("INTERNAL", "the QuickJS build engine embedded in prx does not match its checksum", {
        hint: "rebuild prx (`bun run build`)",
      });
    }
    const tmp = `${path}.tmp-${process.pid}`;
    writeFileSync(tmp, library, { mode: 0o600 });
    renameSync(tmp, path);
  }
  const module: { exports: { componentize?: Componentize } } = { exports: {} };
  process.dlopen(module, path);
  const componentize = module.exports.componentize;
  if (typeof componentize !== "function") throw new PrxError("INTERNAL", `${path} has no componentize function`);
  return componentize;
}
