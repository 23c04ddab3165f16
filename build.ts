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
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REMOTE_WORKER_ENTRYPOINTS } from "./src/plugins/remote/entrypoints.ts";
import { WASM_WORKER_ENTRYPOINTS } from "./src/plugins/wasm/entrypoints.ts";
import { wasmBuildPlugin } from "./src/plugins/wasm/build-plugin.ts";
import { consoleBuildPlugin } from "./src/console/build-plugin.ts";
import { kitBuildPlugin } from "./src/plugins/kit/build/embed-plugin.ts";

const root = import.meta.dir;
const outfile = process.env.PRX_BUILD_OUT ?? join(root, "dist", "prx");

/** Every file that runs as a Worker or a child entry at run time. */
const entrypoints = ["src/cli/main.ts", ...WASM_WORKER_ENTRYPOINTS, ...REMOTE_WORKER_ENTRYPOINTS].map((p) => join(root, p));

/** A hash of everything the binary is built from: caches of derived data (src/core/build-id.ts) are keyed by it. */
function buildId(): string {
  const hasher = new Bun.CryptoHasher("sha256");
  const files = [...new Bun.Glob("src/**/*").scanSync({ cwd: root }), "package.json", "bun.lock"].sort();
  for (const file of files) hasher.update(`${file}\0`).update(readFileSync(join(root, file))).update("\0");
  return hasher.digest("hex").slice(0, 16);
}

mkdirSync(join(root, "dist"), { recursive: true });
const started = performance.now();
// The web console is bundled first (Bun's HTML bundler) and its files embedded in the binary.
const console_ = await consoleBuildPlugin(join(root, "dist", "console"));
const result = await Bun.build({
  entrypoints,
  // a .env or bunfig.toml in the directory prx is started from must not change it (a bunfig preload would run code)
  compile: { outfile, autoloadPackageJson: true, autoloadDotenv: false, autoloadBunfig: false },
  bytecode: true,
  splitting: true,
  metafile: true,
  minify: true,
  format: "esm",
  target: "bun",
  sourcemap: "none",
  define: { PRX_BUILD_ID: JSON.stringify(buildId()) },
  plugins: [wasmBuildPlugin(), console_.plugin, kitBuildPlugin(root)],
  throw: false,
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  console.error("build failed");
  process.exit(1);
}
// Which source modules each embedded chunk holds: the start-modules tests map the chunks a running binary loaded back
// to modules with it.
writeFileSync(`${outfile}.meta.json`, JSON.stringify(result.metafile));
const size = (statSync(outfile).size / 1024 / 1024).toFixed(1);
console.log(`built ${outfile} (${size} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(`embedded the web console: ${console_.files} files, ${(console_.bytes / 1024).toFixed(1)} KiB`);
