/**
 * `bun run bench`: runs every suite in test/bench/suites (or those named on the command line), prints a
 * table and writes test/bench/results.json. A benchmark harness, not tests: nothing here fails a build.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { BenchRow, BenchSuite } from "./types.ts";

const root = resolve(import.meta.dir, "../..");
const binary = join(root, "dist", "prx");
const suitesDir = join(import.meta.dir, "suites");
const wanted = process.argv.slice(2);

if (!existsSync(binary) || process.env.PRX_BENCH_REBUILD) {
  console.log("building dist/prx ...");
  const build = Bun.spawnSync([process.execPath, join(root, "build.ts")], { stdout: "inherit", stderr: "inherit" });
  if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);
}

const names = readdirSync(suitesDir)
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.slice(0, -3))
  .filter((n) => wanted.length === 0 || wanted.includes(n))
  .sort();

const rows: BenchRow[] = [];
for (const name of names) {
  const tmp = mkdtempSync(join(tmpdir(), `prx-bench-${name}-`));
  const started = performance.now();
  try {
    const suite = (await import(join(suitesDir, `${name}.ts`))).default as BenchSuite;
    const got = await suite({ root, binary, tmp });
    rows.push(...got);
    console.log(`suite ${name}: ${got.length} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    console.error(`suite ${name} failed: ${(error as Error).stack ?? error}`);
    rows.push({ suite: name, name: "suite failed", value: NaN, unit: "count", note: String((error as Error).message) });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

const fmt = (v: number) => (Number.isNaN(v) ? "n/a" : v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
const measured = (r: BenchRow) => (r.target?.ratio ? (r.floor?.ratio ?? NaN) : r.value);
const meets = (r: BenchRow) =>
  !r.target
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

// Suites not run this time keep their last rows, so `bun run bench gateway` refreshes only the gateway's.
const out = join(import.meta.dir, "results.json");
const ran = new Set(names);
const previous: BenchRow[] = existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")).rows ?? []) : [];
const merged = [...previous.filter((r) => !ran.has(r.suite)), ...rows].sort((a, b) => a.suite.localeCompare(b.suite));
writeFileSync(
  out,
  JSON.stringify({ date: new Date().toISOString(), bun: Bun.version, cpus: navigator.hardwareConcurrency, rows: merged }, null, 2),
);
console.log(`wrote ${out}`);
