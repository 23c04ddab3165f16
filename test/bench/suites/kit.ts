/**
 * The plugin kit: `prx plugins build` time and component size per example (through dist/prx, the QuickJS engine it
 * embeds) against componentize-js (SpiderMonkey) building the same bundle in the same run, the first build on a
 * machine (the engine written into the kit cache), the engine's share of the binary, and `prx plugins dev`
 * change-to-reloaded latency. The runtime cost of a kit-built middleware is in the middleware suite.
 */
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { compressedQjsAddon, findQjsAddon } from "../../../src/plugins/kit/build/embed-plugin.ts";
import { copyExample, KIT_EXAMPLES } from "../../plugins/kit/examples-build.ts";
import { measureDevLatency } from "../kit-dev-latency.ts";
import { stats, type BenchRow, type BenchSuite } from "../types.ts";

const SUITE = "kit";
/** `prx plugins build --force` runs per example; the median is reported. */
let BUILD_RUNS = 3;
let DEV_EDITS = 7;
/** Counts of the short pass (`bun run bench --quick`). */
const QUICK = { BUILD_RUNS: 1, DEV_EDITS: 2 };
const DEV_TARGET_MS = 1000;

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 100) / 100;

function run(argv: string[], env: Record<string, string>): { ms: number; stdout: string } {
  const started = performance.now();
  const proc = Bun.spawnSync(argv, { env, stdout: "pipe", stderr: "pipe" });
  const ms = performance.now() - started;
  if (proc.exitCode !== 0) throw new Error(`${argv.join(" ")} exited ${proc.exitCode}: ${proc.stderr.toString()}`);
  return { ms, stdout: proc.stdout.toString() };
}

/** componentize-js on the example's bundle: its time and size, or why it could not build it (said in the row). */
function spiderMonkey(ctx: { root: string; tmp: string }, dir: string, name: string, env: Record<string, string>): string {
  const script = join(ctx.root, "test/bench/kit-spidermonkey.ts");
  const proc = Bun.spawnSync([process.execPath, script, dir, join(ctx.tmp, `${name}.sm.wasm`)], { env, stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) {
    const why = /SyntaxError: [^\n]*/.exec(proc.stderr.toString())?.[0] ?? `exit ${proc.exitCode}`;
    return `componentize-js (SpiderMonkey) cannot build this bundle: ${why}`;
  }
  const { ms, bytes } = JSON.parse(proc.stdout.toString().trim().split("\n").at(-1)!) as { ms: number; bytes: number };
  return `componentize-js (SpiderMonkey) of the same bundle: ${Math.round(ms)} ms, ${mb(bytes)} MB`;
}

const suite: BenchSuite = async (ctx) => {
  if (ctx.quick) ({ BUILD_RUNS, DEV_EDITS } = QUICK);
  const rows: BenchRow[] = [];
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", PRX_KIT_CACHE: join(ctx.tmp, "kit-cache"), PRX_LOG: "error" };
  rows.push({
    suite: SUITE,
    name: "QuickJS build engine embedded in dist/prx (componentize-qjs's library, zstd)",
    value: mb(statSync(compressedQjsAddon(ctx.root).path).size),
    unit: "MB",
    note: `uncompressed, written once into the kit cache: ${mb(statSync(findQjsAddon(ctx.root)).size)} MB`,
  });

  const first = join(ctx.tmp, "first", "notes-tool");
  copyExample("notes-tool", first);
  rows.push({
    suite: SUITE,
    name: "first prx plugins build on a machine (the engine written into the kit cache), notes-tool",
    value: Math.round(run([ctx.binary, "plugins", "build", first], env).ms),
    unit: "ms",
  });

  // The short pass builds two examples (a tool and a middleware) instead of all of them.
  for (const name of ctx.quick ? KIT_EXAMPLES.slice(0, 2) : KIT_EXAMPLES) {
    const dir = join(ctx.tmp, "examples", name);
    copyExample(name, dir);
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < BUILD_RUNS; i++) {
      const { ms, stdout } = run([ctx.binary, "plugins", "build", dir, "--force", "--json"], env);
      times.push(ms);
      bytes = (JSON.parse(stdout) as { bytes: number }).bytes;
    }
    // componentize-js takes seconds per bundle: the short pass leaves the comparison out.
    const note = ctx.quick ? "componentize-js not compared in the short pass" : spiderMonkey(ctx, dir, name, env);
    rows.push(
      { suite: SUITE, name: `prx plugins build ${name}: wall time, median of ${BUILD_RUNS}`, value: Math.round(stats(times).p50), unit: "ms", note },
      { suite: SUITE, name: `prx plugins build ${name}: component size`, value: mb(bytes), unit: "MB", note },
    );
  }

  mkdirSync(join(ctx.tmp, "dev"), { recursive: true });
  const dev = await measureDevLatency(ctx.binary, join(ctx.tmp, "dev"), env, DEV_EDITS);
  rows.push(
    {
      suite: SUITE,
      name: `prx plugins dev: source write to reloaded in the gateway, p50 of ${DEV_EDITS} edits (a small tool)`,
      value: Math.round(stats(dev.samples).p50),
      unit: "ms",
      target: { op: "<=", value: DEV_TARGET_MS },
      note: `max ${Math.round(Math.max(...dev.samples))} ms; as dev reports it (file event to reload answer) p50 ${Math.round(stats(dev.reported).p50)} ms`,
    },
  );
  return rows;
};

export default suite;
