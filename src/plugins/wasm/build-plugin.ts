import type { BunPlugin } from "bun";
import { readFileSync } from "node:fs";

/**
 * Bun build plugin for `bun build --compile` (used by build.ts at the repository root, see EMBEDDING.md). It makes the WASM
 * engine's run-time files part of the binary:
 * - jco-transpile's own wasm (transpiler, wasm-tools; ~6 MB) is loaded by its JS from `new URL("./x.wasm",
 *   import.meta.url)`: rewritten into `import x from "./x.wasm" with { type: "file" }` so Bun embeds the file and
 *   the code reads it from wherever it lands in /$bunfs;
 * - preview2-shim starts `new Worker(new URL("./worker-thread.bundle.js", import.meta.url))` when imported: rewritten
 *   to look the entry up in /$bunfs (the entry itself is src/plugins/wasm/worker-thread.bundle.ts, listed in
 *   WASM_WORKER_ENTRYPOINTS);
 * - jco-transpile's optional native minifier (oxc-minify, never used: prx transpiles without minify) is stubbed.
 */
export function wasmBuildPlugin(): BunPlugin {
  return {
    name: "prx-wasm-embed",
    setup(build) {
      build.onResolve({ filter: /^oxc-minify$/ }, () => ({ path: "oxc-minify", namespace: "prx-wasm-stub" }));
      build.onLoad({ filter: /.*/, namespace: "prx-wasm-stub" }, () => ({
        contents: 'export function minify() { throw new Error("minify is not available in the prx binary"); }',
        loader: "js",
      }));
      build.onLoad({ filter: /jco-transpile[\\/]vendor[\\/][^\\/]+\.js$/ }, (args) => {
        const source = readFileSync(args.path, "utf8");
        const assets: string[] = [];
        const contents = source.replace(/new URL\('\.\/([\w.-]+\.wasm)', import\.meta\.url\)/g, (_, file: string) => {
          assets.push(file);
          return `__prxAsset${assets.length - 1}`;
        });
        const imports = assets
          .map((file, i) => `import __prxAsset${i} from "./${file}" with { type: "file" };`)
          .join("\n");
        return { contents: `${imports}\n${contents}`, loader: "js" };
      });
      build.onLoad({ filter: /preview2-shim[\\/]dist[\\/]io[\\/]worker-io\.js$/ }, (args) => {
        const source = readFileSync(args.path, "utf8");
        const finder =
          '(() => { try { const e = require("node:fs").readdirSync("/$bunfs/root", { recursive: true })' +
          '.find((p) => /(^|\\/)worker-thread\\.bundle\\.(js|ts)$/.test(p)); if (e) return "/$bunfs/root/" + e; } catch {}' +
          ' return new URL("./worker-thread.bundle.js", import.meta.url); })()';
        return {
          contents: source.replace('new URL("./worker-thread.bundle.js", import.meta.url)', finder),
          loader: "js",
        };
      });
    },
  };
}
