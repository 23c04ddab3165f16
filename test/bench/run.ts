/**
 * `bun run bench [--quick] [suite...]`: runs every suite in test/bench/suites (or those named on the command line),
 * prints a table and writes test/bench/results.json. A benchmark harness, not tests: a missed target never fails it,
 * but an unknown suite name (exit 2) or a suite that throws (exit 1, after the others ran) does.
 *
 * `--quick` runs each suite in its short mode (fewer sizes, rounds and pairs; BenchContext.quick), asserts no
 * target and leaves results.json alone: CI runs it so that a broken bench cannot land.
 *
 * A whole run (no suite named, none failed) also rewrites the performance record in test/bench/README.md
 * (record.ts): the table of that one run, with the binary, the date and each suite's load average. It builds dist/prx
 * first, so the binary it records is the source's as it stands.
 *
 * PRX_BENCH_SUITES (a directory of suites), PRX_BENCH_RESULTS (the results file), PRX_BENCH_RECORD (the file holding
 * the record) and PRX_BENCH_NO_BUILD (never build dist/prx) let the harness's own tests run it on fixture suites;
 * PRX_BINARY measures another binary than dist/prx (A/B runs of two builds).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { formatValue, loadAverage, meetsTarget, renderRecord, type SuiteRun, writeRecord } from "./record.ts";
import type { BenchRow, BenchSuite } from "./types.ts";

const root = resolve(import.meta.dir, "../..");
const binary = process.env.PRX_BINARY ? resolve(process.env.PRX_BINARY) : join(root, "dist", "prx");
const suitesDir = resolve(process.env.PRX_BENCH_SUITES || join(import.meta.dir, "suites"));
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const wanted = args.filter((a) => a !== "--quick");

const available = readdirSync(suitesDir)
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.slice(0, -3))
  .sort();
const unknown = wanted.filter((n) => !available.includes(n));
if (unknown.length > 0) {
  const what = unknown.map((n) => (n.startsWith("-") ? `option ${n}` : `suite "${n}"`)).join(", ");
  console.error(`bench: unknown ${what}`);
  console.error(`usage: bun run bench [--quick] [suite...]; suites: ${available.join(", ")}`);
  process.exit(2);
}
const names = available.filter((n) => wanted.length === 0 || wanted.includes(n));

// A whole run writes the record, which names the binary's commit: it measures dist/prx built from the source as it is.
const writesRecord = wanted.length === 0 && !quick;
const builds = !process.env.PRX_BENCH_NO_BUILD && !process.env.PRX_BINARY && (writesRecord || !existsSync(binary) || process.env.PRX_BENCH_REBUILD);
if (builds) {
  console.log("building dist/prx ...");
  const build = Bun.spawnSync([process.execPath, join(root, "build.ts")], { stdout: "inherit", stderr: "inherit" });
  if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);
}

const rows: BenchRow[] = [];
const failed: string[] = [];
const suiteRuns: SuiteRun[] = [];
const runStarted = performance.now();
const startedAt = new Date();
for (const name of names) {
  const tmp = mkdtempSync(join(tmpdir(), `prx-bench-${name}-`));
  const started = performance.now();
  const loadAtStart = loadAverage();
  try {
    const suite = (await import(join(suitesDir, `${name}.ts`))).default as BenchSuite;
    const got = await suite({ root, binary, tmp, quick });
    rows.push(...got);
    console.log(`suite ${name}: ${got.length} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    failed.push(name);
    console.error(`suite ${name} failed: ${(error as Error).stack ?? error}`);
    rows.push({ suite: name, name: "suite failed", value: NaN, unit: "count", note: String((error as Error).message) });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    suiteRuns.push({ name, seconds: (performance.now() - started) / 1000, load: [loadAtStart, loadAverage()] });
  }
}

const fmt = formatValue;
const meets = (r: BenchRow) => {
  const met = quick ? undefined : meetsTarget(r);
  return met === undefined ? "" : met ? "yes" : "NO";
};
const table = [
  ["suite", "measure", "value", "unit", "floor", "ratio", "target", "met"],
  ...rows.map((r) => [
    r.suite,
    r.name,
    fmt(r.value),
    r.unit,
    r.floor ? `${fmt(r.floor.value)} (${r.floor.name})` : "",
    r.floor ? `x${r.floor.ratio.toFixed(2)}` : "",
    r.target ? `${r.target.op} ${r.target.ratio ? "x" : ""}${r.target.value}` : "",
    meets(r),
  ]),
];
const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
for (const row of table) console.log(row.map((c, i) => c.padEnd(widths[i]!)).join("  "));
const total = `${names.length} suites in ${((performance.now() - runStarted) / 1000).toFixed(1)} s`;

if (quick) {
  console.log(`quick run: ${total}; targets not asserted, results.json left as it was`);
} else {
  // Suites not run this time keep their last rows, so `bun run bench gateway` refreshes only the gateway's.
  const out = resolve(process.env.PRX_BENCH_RESULTS || join(import.meta.dir, "results.json"));
  const ran = new Set(names);
  const previous: BenchRow[] = existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")).rows ?? []) : [];
  const merged = [...previous.filter((r) => !ran.has(r.suite)), ...rows].sort((a, b) => a.suite.localeCompare(b.suite));
  writeFileSync(
    out,
    JSON.stringify(
      { date: new Date().toISOString(), bun: Bun.version, cpus: navigator.hardwareConcurrency, suites: suiteRuns, rows: merged },
      null,
      2,
    ),
  );
  console.log(`${total}; wrote ${out}`);
  if (writesRecord && failed.length === 0) {
    const recordFile = resolve(process.env.PRX_BENCH_RECORD || join(import.meta.dir, "README.md"));
    const record = renderRecord({
      started: startedAt,
      ended: new Date(),
      binary: describeBinary(),
      bun: Bun.version,
      cpus: navigator.hardwareConcurrency,
      suites: suiteRuns,
      rows,
    });
    writeRecord(recordFile, record);
    console.log(`wrote the performance record into ${recordFile}`);
  }
}

if (failed.length > 0) {
  console.error(`bench: ${failed.length} suite(s) failed: ${failed.join(", ")}`);
  process.exit(1);
}

/**
 * Which binary the record describes: its path and build time, and its commit when this run built it; a binary built
 * before the run (PRX_BINARY, PRX_BENCH_NO_BUILD) may come from another commit than the one the repository stands at.
 */
function describeBinary(): string {
  const built = existsSync(binary) ? statSync(binary).mtime.toISOString().slice(0, 16).replace("T", " ") : "missing";
  const git = (...a: string[]) => Bun.spawnSync(["git", "-C", root, ...a]).stdout.toString().trim();
  const commit = git("rev-parse", "--short", "HEAD") || "unknown";
  const dirty = git("status", "--porcelain", "--untracked-files=no") ? " with uncommitted changes" : "";
  const path = `\`${relative(root, binary) || binary}\``;
  return builds
    ? `${path} built ${built} UTC by this run, from commit ${commit}${dirty}`
    : `${path} built ${built} UTC before this run (the repository at commit ${commit}${dirty})`;
}
