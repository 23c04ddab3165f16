import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const RUN = join(import.meta.dir, "run.ts");
const FIXTURES = join(import.meta.dir, "fixtures", "suites");
let dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

/** `bun run bench ...args` on the fixture suites, never building dist/prx, writing results into a temporary dir. */
function bench(...args: string[]): { exitCode: number; stdout: string; stderr: string; results: string } {
  const dir = mkdtempSync(join(tmpdir(), "prx-bench-run-"));
  dirs.push(dir);
  const results = join(dir, "results.json");
  const run = Bun.spawnSync([process.execPath, RUN, ...args], {
    env: { ...process.env, PRX_BENCH_SUITES: FIXTURES, PRX_BENCH_RESULTS: results, PRX_BENCH_NO_BUILD: "1" },
  });
  return { exitCode: run.exitCode ?? -1, stdout: run.stdout.toString(), stderr: run.stderr.toString(), results };
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
});
