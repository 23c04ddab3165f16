/**
 * `bun run bench [--quick] [suite...]`: runs every suite in test/bench/suites (or those named on the command line),
 * prints a table and writes test/bench/results.json. A benchmark harness, not tests: a missed target never fails it,
 * but an unknown suite name (exit 2) or a suite that throws (exit 1, after the others ran) does.
 *
 * `--quick` runs each suite in its short mode (fewer sizes, rounds and pairs; BenchContext.quick), asserts no
 * target and leaves results.json alone: CI runs it so that a broken bench cannot land.
 *
 * PRX_BENCH_SUITES (a directory of suites), PRX_BENCH_RESULTS (the results file) and PRX_BENCH_NO_BUILD (never
 * build dist/prx) let the harness's own tests run it on fixture suites; PRX_BINARY measures another binary than
 * dist/prx (A/B runs of two builds).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
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

if (!process.env.PRX_BENCH_NO_BUILD && !process.env.PRX_BINARY && (!existsSync(binary) || process.env.PRX_BENCH_REBUILD)) {
  console.log("building dist/prx ...");
  const build = Bun.spawnSync([process.execPath, join(root, "build.ts")], { stdout: "inherit", stderr: "inherit" });
  if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);
}

const rows: BenchRow[] = [];
const failed: string[] = [];
const runStarted = performance.now();
for (const name of names) {
  const tmp = mkdtempSync(join(tmpdir(), `prx-bench-${name}-`));
  const started = performance.now();
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
  }
}

const fmt = (v: number) => (Number.isNaN(v) ? "n/a" : v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
const measured = (r: BenchRow) => (r.target?.ratio ? (r.floor?.ratio ?? NaN) : r.value);
const meets = (r: BenchRow) =>
  !r.target || quick
    ? ""
    : (r.target.op === "<=" ? measured(r) <= r.target.value : measured(r) >= r.target.value)
      ? "yes"
      : "NO";
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
    JSON.stringify({ date: new Date().toISOString(), bun: Bun.version, cpus: navigator.hardwareConcurrency, rows: merged }, null, 2),
  );
  console.log(`${total}; wrote ${out}`);
}

if (failed.length > 0) {
  console.error(`bench: ${failed.length} suite(s) failed: ${failed.join(", ")}`);
  process.exit(1);
}
