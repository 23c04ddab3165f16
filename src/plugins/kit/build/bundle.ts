import type { BunPlugin } from "bun";
import { posix, relative } from "node:path";
import { PrxError } from "../../../core/errors.ts";
import { GUEST_FILES } from "../embedded/files.ts";
import type { HostImport, PluginWorld } from "./world.ts";

/**
 * Bundles a plugin's TypeScript into one ES module for the QuickJS engine: `@prx/kit`, `@prx/kit/http` and
 * `@prx/kit/memory` resolve to the kit embedded in prx (never to a copy in the plugin folder), `prx:host/*` stay
 * imports of the component, and a generated entry re-exports the capability objects after checking, while the
 * engine evaluates the module at build time, that each one has the functions the world needs.
 */
export interface Bundle {
  js: string;
  /** The source map of `js` (sources relative to the plugin directory). */
  map: string;
  hostImports: HostImport[];
}

const KIT_MODULES: Readonly<Record<string, string>> = {
  "@prx/kit": "index.ts",
  "@prx/kit/http": "http.ts",
  "@prx/kit/memory": "memory.ts",
};
const ENTRY = "prx-kit-entry";
/** A thrown Error whose message starts with this is the entry's export check (componentize.ts reads it back). */
export const EXPORTS_CHECK_MARK = "PRX_KIT_EXPORTS:";

function entryModule(sourcePath: string, world: PluginWorld): string {
  const needed = JSON.stringify(Object.fromEntries(world.exports.map((e) => [e.name, e.functions])));
  return [
    `import * as plugin from ${JSON.stringify(sourcePath)};`,
    `const needed = ${needed};`,
    "const problems = [];",
    "for (const name of Object.keys(needed)) {",
    "  const value = plugin[name];",
    '  if (value === null || typeof value !== "object") { problems.push(`export const ${name} = { ${needed[name].join(", ")} }`); continue; }',
    '  const missing = needed[name].filter((fn) => typeof value[fn] !== "function");',
    '  if (missing.length > 0) problems.push(`${name}.${missing.join(`, ${name}.`)} (functions)`);',
    "}",
    `if (problems.length > 0) throw new Error(${JSON.stringify(EXPORTS_CHECK_MARK)} + problems.join("; "));`,
    ...world.exports.map((e) => `export const ${e.name} = plugin.${e.name};`),
  ].join("\n");
}

function kitResolver(sourcePath: string, dir: string, world: PluginWorld, hostImports: HostImport[], problems: PrxError[]): BunPlugin {
  const label = (importer: string) => (importer.startsWith("/") ? relative(dir, importer) : `@prx/kit (${importer})`);
  return {
    name: "prx-kit",
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${ENTRY}$`) }, () => ({ path: ENTRY, namespace: ENTRY }));
      build.onLoad({ filter: /.*/, namespace: ENTRY }, () => ({ contents: entryModule(sourcePath, world), loader: "js" }));
      build.onResolve({ filter: /^@prx\/kit(\/.*)?$/ }, (args) => {
        const file = KIT_MODULES[args.path];
        if (!file) {
          const hint =
            args.path === "@prx/kit/test"
              ? "@prx/kit/test is for plugin.test.ts, which runs under `prx plugins test`, not inside the plugin"
              : `the kit's modules are ${Object.keys(KIT_MODULES).join(", ")}`;
          // thrown here it would lose its hint inside the bundler's log: reported after the build instead
          problems.push(new PrxError("PLUGIN_BUILD", `${label(args.importer)} imports ${args.path}, which the kit does not have`, { hint }));
          return { path: args.path, external: true };
        }
        return { path: file, namespace: "prx-kit" };
      });
      // the kit's own relative imports (Bun passes the importer's namespace, not a filter on it)
      build.onResolve({ filter: /^\.\.?\// }, (args) =>
        args.namespace === "prx-kit" || (args.importer in GUEST_FILES && !args.importer.startsWith("/"))
          ? { path: posix.normalize(posix.join(posix.dirname(args.importer), args.path)), namespace: "prx-kit" }
          : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: "prx-kit" }, (args) => {
        const contents = GUEST_FILES[args.path];
        if (contents === undefined) throw new PrxError("INTERNAL", `the embedded kit has no ${args.path}`);
        return { contents, loader: "ts" };
      });
      build.onResolve({ filter: /^prx:/ }, (args) => {
        hostImports.push({ specifier: args.path, importer: label(args.importer) });
        return { path: args.path, external: true };
      });
    },
  };
}

interface BuildLogLike {
  message: string;
  level: string;
  position: { file: string; line: number; column: number; lineText: string } | null;
}

/** A bundler message as `src/plugin.ts:12:5: error: ...` with the offending line under it. */
export function formatBuildLog(log: BuildLogLike, dir: string): string {
  const pos = log.position;
  if (!pos || !pos.file) return `${log.level}: ${log.message}`;
  const file = pos.file.startsWith("/") ? relative(dir, pos.file) : pos.file;
  if (pos.line === 0) return `${file}: ${log.level}: ${log.message}`;
  return `${file}:${pos.line}:${pos.column}: ${log.level}: ${log.message}${pos.lineText ? `\n    ${pos.lineText.trim()}` : ""}`;
}

export async function bundlePlugin(dir: string, sourcePath: string, world: PluginWorld): Promise<Bundle> {
  const hostImports: HostImport[] = [];
  const problems: PrxError[] = [];
  let result: Awaited<ReturnType<typeof Bun.build>>;
  try {
    result = await Bun.build({
      entrypoints: [ENTRY],
      format: "esm",
      target: "browser",
      sourcemap: "external",
      minify: false,
      root: dir,
      plugins: [kitResolver(sourcePath, dir, world, hostImports, problems)],
      throw: false,
    });
  } catch (error) {
    if (error instanceof PrxError) throw error;
    throw new PrxError("PLUGIN_BUILD", `bundling ${relative(dir, sourcePath)} failed: ${(error as Error).message}`, { cause: error });
  }
  if (problems[0]) throw problems[0];
  const errors = result.logs.filter((l) => l.level === "error");
  if (!result.success || errors.length > 0) {
    const lines = (errors.length > 0 ? errors : result.logs).map((l) => formatBuildLog(l as BuildLogLike, dir));
    throw new PrxError("PLUGIN_BUILD", `${relative(dir, sourcePath)} does not build:\n${lines.join("\n")}`, {
      hint: "fix the error at the file:line above and build again",
    });
  }
  const js = result.outputs.find((o) => o.kind === "entry-point");
  const map = result.outputs.find((o) => o.kind === "sourcemap");
  if (!js || !map) throw new PrxError("INTERNAL", "the bundler returned no module or no source map");
  return { js: await js.text(), map: await map.text(), hostImports };
}
