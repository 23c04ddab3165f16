import { afterEach, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const RUN = join(import.meta.dir, "run.ts");
const FIXTURES = join(import.meta.dir, "fixtures", "suites");
let dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

const RECORD_FILE = "# Performance record\n\nbefore\n<!-- bench-record:start -->\nold table\n<!-- bench-record:end -->\nafter\n";

/**
 * `bun run bench ...args` on the fixture suites (or some of them), never building dist/prx, writing results and the
 * record into a temporary dir.
 */
function bench(...args: string[]): { exitCode: number; stdout: string; stderr: string; results: string; record: string } {
  return benchOn(FIXTURES, ...args);
}

function benchOn(suites: string, ...args: string[]) {
  const dir = mkdtempSync(join(tmpdir(), "prx-bench-run-"));
  dirs.push(dir);
  const results = join(dir, "results.json");
  const record = join(dir, "README.md");
  writeFileSync(record, RECORD_FILE);
  const run = Bun.spawnSync([process.execPath, RUN, ...args], {
    env: {
      ...process.env,
      PRX_BENCH_SUITES: suites,
      PRX_BENCH_RESULTS: results,
      PRX_BENCH_RECORD: record,
      PRX_BENCH_NO_BUILD: "1",
    },
  });
  return { exitCode: run.exitCode ?? -1, stdout: run.stdout.toString(), stderr: run.stderr.toString(), results, record };
}

/** A suites directory holding only the named fixture suites. */
function fixtureSuites(...names: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "prx-bench-suites-"));
  dirs.push(dir);
  for (const name of names) copyFileSync(join(FIXTURES, `${name}.ts`), join(dir, `${name}.ts`));
  return dir;
}

describe("bun run bench (the harness's arguments and exit status)", () => {
  test("an unknown suite name exits 2 naming it and listing the suites, and runs nothing", () => {
    const run = bench("alpha", "nosuch");
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('unknown suite "nosuch"');
    expect(run.stderr).toContain("suites: alpha, broken, omega");
    expect(run.stdout).not.toContain("alpha row");
    expect(existsSync(run.results)).toBe(false);
  });

  test("an unknown option exits 2", () => {
    const run = bench("--fast");
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("unknown option --fast");
  });

  test("a suite that throws exits 1 with its error, after the other suites' rows printed", () => {
    const run = bench();
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("suite broken failed: Error: broken fixture suite: instance went away");
    expect(run.stderr).toContain("1 suite(s) failed: broken");
    expect(run.stdout).toContain("alpha row");
    expect(run.stdout).toContain("omega row");
    const rows = JSON.parse(readFileSync(run.results, "utf8")).rows.map((r: { name: string }) => r.name);
    expect(rows).toEqual(["alpha row", "suite failed", "omega row"]);
  });

  test("named suites that all run exit 0; a missed target does not fail the run", () => {
    const run = bench("alpha", "omega");
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/alpha row .* <= 0\.5 +NO/);
  });

  test("--quick runs every suite short, asserts no target and leaves the results file alone", () => {
    const run = bench("--quick", "alpha");
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("alpha row (quick)");
    expect(run.stdout).not.toMatch(/alpha row \(quick\) .*NO/);
    expect(run.stdout).toContain("targets not asserted");
    expect(existsSync(run.results)).toBe(false);
    expect(bench("--quick").exitCode).toBe(1);
  });

  test("a whole run rewrites the record between its markers: every row, the binary, each suite's load", () => {
    const run = benchOn(fixtureSuites("alpha", "omega"));
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("wrote the performance record");
    const text = readFileSync(run.record, "utf8");
    expect(text.startsWith("# Performance record\n\nbefore\n<!-- bench-record:start -->\n")).toBe(true);
    expect(text.endsWith("<!-- bench-record:end -->\nafter\n")).toBe(true);
    expect(text).not.toContain("old table");
    // built before the run (PRX_BENCH_NO_BUILD): the record does not claim the repository's commit as the binary's
    expect(text).toMatch(/binary `.*` built [\d-]+ [\d:]+ UTC before this run \(the repository at commit \w+/);
    expect(text).toMatch(/\| alpha \| [\d.]+ \/ [\d.]+ \| alpha row \| 1\.00 ms \|  \| <= 0\.5 \| \*\*no\*\* \|/);
    expect(text).toMatch(/\| omega \| [\d.]+ \/ [\d.]+ \| omega row \| 2\.00 ms \|/);
    const results = JSON.parse(readFileSync(run.results, "utf8"));
    expect(results.suites.map((s: { name: string }) => s.name)).toEqual(["alpha", "omega"]);
  });

  test("a run of named suites, a quick run or a run with a failed suite leaves the record as it was", () => {
    for (const run of [bench("alpha"), bench("--quick", "alpha"), bench()]) {
      expect(readFileSync(run.record, "utf8")).toBe(RECORD_FILE);
    }
  });

  test("a record file without its markers is refused by name, not rewritten", () => {
    const suites = fixtureSuites("alpha");
    const run = benchOn(suites);
    writeFileSync(run.record, "no markers here\n");
    const again = Bun.spawnSync([process.execPath, RUN], {
      env: { ...process.env, PRX_BENCH_SUITES: suites, PRX_BENCH_RESULTS: run.results, PRX_BENCH_RECORD: run.record, PRX_BENCH_NO_BUILD: "1" },
    });
    expect(again.exitCode).not.toBe(0);
    expect(again.stderr.toString()).toContain("has no <!-- bench-record:start --> ... <!-- bench-record:end --> section");
    expect(readFileSync(run.record, "utf8")).toBe("no markers here\n");
  });
});
