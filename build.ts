/**
 * Builds the single `dist/prx` executable with `bun build --compile`.
 * Worker scripts are extra entrypoints (Bun embeds them and resolves `new Worker(new URL(...))`),
 * and run-time assets are embedded so the binary needs nothing beside it.
 */
import { $ } from "bun";
import { existsSync, mkdirSync, statSync } from "node:fs";

const root = import.meta.dir;
const outfile = process.env.PRX_BUILD_OUT ?? `${root}/dist/prx`;

/** Every file that runs as a Worker or is imported by path at run time. */
export const EXTRA_ENTRYPOINTS: string[] = [];

const args = [
  "build",
  "--compile",
  "--bytecode",
  "--minify",
  "--format=esm",
  "--sourcemap=none",
  `--outfile=${outfile}`,
  `${root}/src/cli/main.ts`,
  ...EXTRA_ENTRYPOINTS.map((p) => `${root}/${p}`).filter((p) => existsSync(p)),
];

mkdirSync(`${root}/dist`, { recursive: true });
const started = performance.now();
const result = await $`${process.execPath} ${args}`.nothrow();
if (result.exitCode !== 0) {
  console.error(`build failed (exit ${result.exitCode})`);
  process.exit(result.exitCode);
}
const size = (statSync(outfile).size / 1024 / 1024).toFixed(1);
console.log(`built ${outfile} (${size} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
