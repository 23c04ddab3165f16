/**
 * Builds the single `dist/prx` executable with Bun's bundler in compile mode.
 * Worker scripts are extra entrypoints (Bun embeds them; each subsystem finds its entry inside /$bunfs),
 * and run-time assets (jco's own wasm, WIT files, the plugin kit's QuickJS build engine) are embedded so the binary
 * needs nothing beside it.
 * `--bytecode` with ESM output starts fastest (see README, Performance).
 * `autoloadPackageJson`: a compiled binary reads no package.json at run time unless told to, so a remote plugin's own
 * node_modules would only resolve packages that need none (`<pkg>/index.js`); with it, a plugin entry on disk resolves
 * `main`, `module`, `exports` (with conditions) and `imports` exactly as `bun <entry>` does.
 */
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { REMOTE_WORKER_ENTRYPOINTS } from "./src/plugins/remote/entrypoints.ts";
import { WASM_WORKER_ENTRYPOINTS } from "./src/plugins/wasm/entrypoints.ts";
import { wasmBuildPlugin } from "./src/plugins/wasm/build-plugin.ts";
import { kitBuildPlugin } from "./src/plugins/kit/build/embed-plugin.ts";

const root = import.meta.dir;
const outfile = process.env.PRX_BUILD_OUT ?? join(root, "dist", "prx");

/** Every file that runs as a Worker or a child entry at run time. */
const entrypoints = ["src/cli/main.ts", ...WASM_WORKER_ENTRYPOINTS, ...REMOTE_WORKER_ENTRYPOINTS].map((p) => join(root, p));

mkdirSync(join(root, "dist"), { recursive: true });
const started = performance.now();
const result = await Bun.build({
  entrypoints,
  // a .env or bunfig.toml in the directory prx is started from must not change it (a bunfig preload would run code)
  compile: { outfile, autoloadPackageJson: true, autoloadDotenv: false, autoloadBunfig: false },
  bytecode: true,
  minify: true,
  format: "esm",
  target: "bun",
  sourcemap: "none",
  plugins: [wasmBuildPlugin(), kitBuildPlugin(root)],
  throw: false,
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  console.error("build failed");
  process.exit(1);
}
const size = (statSync(outfile).size / 1024 / 1024).toFixed(1);
console.log(`built ${outfile} (${size} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
