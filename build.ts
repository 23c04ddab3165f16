/**
 * Builds the single `dist/prx` executable with Bun's bundler in compile mode.
 * Worker scripts are extra entrypoints (Bun embeds them; each subsystem finds its entry inside /$bunfs),
 * and run-time assets (jco's own wasm, WIT files, the plugin kit's QuickJS build engine) are embedded so the binary
 * needs nothing beside it.
 * `--bytecode` with ESM output starts fastest (see README, Performance). The binary is built twice: the first build is
 * run through its common starts to record which bytecode they use (src/cli/start-profile.ts), and the second lays
 * that bytecode out together (`bytecodeOrder`); it starts with the JIT reluctant (`jitPolicy`, src/core/jit-policy.ts).
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
import { recordStartProfiles } from "./src/cli/start-profile.ts";
import { START_JIT_POLICY } from "./src/core/jit-policy.ts";

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
const id = buildId();
const build = (bytecodeOrder: string[] | null) =>
  Bun.build({
    entrypoints,
    // a .env or bunfig.toml in the directory prx is started from must not change it (a bunfig preload would run code)
    compile: {
      outfile,
      autoloadPackageJson: true,
      autoloadDotenv: false,
      autoloadBunfig: false,
      bytecodeOrder,
      jitPolicy: START_JIT_POLICY,
    },
    bytecode: true,
    splitting: true,
    metafile: true,
    minify: true,
    format: "esm",
    target: "bun",
    sourcemap: "none",
    define: { PRX_BUILD_ID: JSON.stringify(id) },
    plugins: [wasmBuildPlugin(), console_.plugin, kitBuildPlugin(root)],
    throw: false,
  });

function failed(result: Bun.BuildOutput): boolean {
  if (result.success) return false;
  for (const log of result.logs) console.error(log);
  console.error("build failed");
  return true;
}

let result = await build(null);
if (failed(result)) process.exit(1);
const profiles = await recordStartProfiles(outfile);
try {
  result = await build(profiles.files);
} finally {
  profiles.cleanup();
}
if (failed(result)) process.exit(1);
// Which source modules each embedded chunk holds: the start-modules tests map the chunks a running binary loaded back
// to modules with it.
writeFileSync(`${outfile}.meta.json`, JSON.stringify(result.metafile));
const size = (statSync(outfile).size / 1024 / 1024).toFixed(1);
console.log(`built ${outfile} (${size} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(`embedded the web console: ${console_.files} files, ${(console_.bytes / 1024).toFixed(1)} KiB`);
