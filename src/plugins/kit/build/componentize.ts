import { relative, resolve } from "node:path";
import { PrxError } from "../../../core/errors.ts";
import { EXPORTS_CHECK_MARK, type Bundle } from "./bundle.ts";
import { qjsEngine } from "./qjs-engine.ts";
import { SourceMap, type SourceMapJson } from "./source-map.ts";

/**
 * Turns a bundle into a component with the QuickJS engine. The engine evaluates the module while it builds (its
 * state is snapshotted into the component), so top-level errors and the entry's export check surface here: their
 * positions in the bundle are mapped back to the plugin's files.
 */
/**
 * The engine's non-async runtime (prx's host calls suspend through JSPI, not the component-model async ABI) built for
 * size: 1.05 MB components in ~0.4 s instead of 1.6 MB in ~0.6 s, for ~25 % slower guest code (measured in
 * test/bench/suites/kit.ts).
 */
export const ENGINE_OPTIONS = { sync: true, optSize: true } as const;

const POSITION = /componentize-qjs:user\.js:(\d+):(\d+)/g;

/** `componentize-qjs:user.js:L:C` in an engine message, as `src/plugin.ts:L:C` of the plugin directory. */
export function mapEnginePositions(message: string, map: SourceMap, dir: string): string {
  return message.replace(POSITION, (whole, line: string, column: string) => {
    const original = map.originalAt(Number(line), Number(column));
    if (!original || original.source.includes(":")) return whole;
    return `${relative(dir, resolve(original.source))}:${original.line}:${original.column}`;
  });
}

export async function componentizeBundle(bundle: Bundle, witPath: string, world: string, dir: string): Promise<Uint8Array> {
  const componentize = await qjsEngine();
  try {
    const { component } = await componentize({ witPath, jsSource: bundle.js, world, ...ENGINE_OPTIONS });
    return new Uint8Array(component);
  } catch (error) {
    const raw = (error as Error).message ?? String(error);
    const mark = raw.indexOf(EXPORTS_CHECK_MARK);
    if (mark >= 0) {
      const missing = raw.slice(mark + EXPORTS_CHECK_MARK.length).split("\n")[0]!.trim();
      throw new PrxError("PLUGIN_BUILD", `src/plugin.ts does not export what a ${world} plugin needs: ${missing}`, {
        hint: "export the capability's object, e.g. `export const toolExports = defineTool({ ... })` (see `prx plugins new`)",
      });
    }
    const map = new SourceMap(JSON.parse(bundle.map) as SourceMapJson);
    const detail = mapEnginePositions(raw.replace(/^[:\s]+/, ""), map, dir).trim();
    const evaluating = raw.includes("Failed to evaluate user JavaScript module");
    throw new PrxError("PLUGIN_BUILD", `the QuickJS engine refused the plugin: ${detail}`, {
      cause: error,
      hint: evaluating
        ? "the module's top-level code runs when the plugin is built (its state is snapshotted); fix the error at the file:line above"
        : "check the plugin's exports against the world in src/plugins/wasm/wit/",
    });
  }
}
