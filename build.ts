/**
 * Builds the single `dist/prx` executable with Bun's bundler in compile mode.
 * Worker scripts are extra entrypoints (Bun embeds them; each subsystem finds its entry inside /$bunfs),
 * and run-time assets (jco's own wasm, WIT files, the plugin kit's QuickJS build engine) are embedded so the binary
 * needs nothing beside it.
 * `--bytecode` with ESM output starts fastest (see README, Performance). A kept start-up trick (src/boot/tricks.ts):
 * the binary is built twice, the first build run through its common starts to record which bytecode they use
 * (src/boot/start-profile.ts) and the second laying that bytecode out together (`bytecodeOrder`).
 * `PRX_BUILD_WITHOUT=bytecode-order` leaves it out (the startup bench measures what it buys). `PRX_BUILD_MINIFY=0`
 * keeps the source's names, so that a CPU profile (`BUN_OPTIONS=--cpu-prof`) names the functions it saw.
 * `autoloadPackageJson`: a compiled binary reads no package.json at run time unless told to, so a remote plugin's own
 * node_modules would only resolve packages that need none (`<pkg>/index.js`); with it, a plugin entry on disk resolves
 * `main`, `module`, `exports` (with conditions) and `imports` exactly as `bun <entry>` does.
 */
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { REMOTE_WORKER_ENTRYPOINTS } from "./src/plugins/remote/entrypoints.ts";
import { WASM_WORKER_ENTRYPOINTS } from "./src/plugins/wasm/entrypoints.ts";
import { wasmBuildPlugin } from "./src/plugins/wasm/build-plugin.ts";
import { consoleBuildPlugin } from "./src/console/build-plugin.ts";
import { kitBuildPlugin } from "./src/plugins/kit/build/embed-plugin.ts";
import { recordStartProfiles } from "./src/boot/start-profile.ts";
import { buildTricksWithout } from "./src/boot/tricks.ts";
import { schemaFingerprint } from "./src/config/schema-fingerprint.ts";
import { specsFromSchemas } from "./src/tools/builtins/specs.ts";

const root = import.meta.dir;
const outfile = process.env.PRX_BUILD_OUT ?? join(root, "dist", "prx");
const without = buildTricksWithout(process.env.PRX_BUILD_WITHOUT);

/** Every file that runs as a Worker or a child entry at run time. */
const entrypoints = ["src/cli/main.ts", ...WASM_WORKER_ENTRYPOINTS, ...REMOTE_WORKER_ENTRYPOINTS].map((p) => join(root, p));

mkdirSync(join(root, "dist"), { recursive: true });
const started = performance.now();
// The web console is bundled first (Bun's HTML bundler) and its files embedded in the binary.
const console_ = await consoleBuildPlugin(join(root, "dist", "console"));
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
    },
    bytecode: true,
    splitting: true,
    minify: process.env.PRX_BUILD_MINIFY !== "0",
    format: "esm",
    target: "bun",
    sourcemap: "none",
    // the binary has no source files to hash: it carries the fingerprint of those it was built from; and, a kept
    // start-up trick (src/boot/tricks.ts, "tools-at-rest"), the built-in tools' specs as their schemas give them
    define: {
      PRX_CONFIG_SCHEMA_FINGERPRINT: JSON.stringify(schemaFingerprint()),
      ...(without.has("tools-at-rest") ? {} : { PRX_BUILTIN_TOOL_SPECS: JSON.stringify(JSON.stringify(specsFromSchemas())) }),
      // the startup bench's binary without the trick "answer-first" (src/boot/answer-first.ts)
      ...(without.has("answer-first") ? { PRX_BUILT_WITHOUT_ANSWER_FIRST: "true" } : {}),
    },
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
if (!without.has("bytecode-order")) {
  const profiles = await recordStartProfiles(outfile);
  try {
    result = await build(profiles.files);
  } finally {
    profiles.cleanup();
  }
  if (failed(result)) process.exit(1);
}
const size = (statSync(outfile).size / 1024 / 1024).toFixed(1);
console.log(`built ${outfile} (${size} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(`embedded the web console: ${console_.files} files, ${(console_.bytes / 1024).toFixed(1)} KiB`);
