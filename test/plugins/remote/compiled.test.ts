import { expect, test } from "bun:test";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REMOTE_WORKER_ENTRYPOINTS } from "../../../src/plugins/remote/index.ts";
import { EXAMPLE_DIR, FIXTURES } from "./helpers.ts";

const ROOT = join(import.meta.dir, "../../..");

test("a compiled binary runs remote plugins from disk over Worker and subprocess, both specifiers", async () => {
  const tmp = mkdtempSync(join(tmpdir(), "prx-remote-compiled-"));
  try {
    const binary = join(tmp, "host");
    const build = Bun.spawnSync(
      [
        "bun",
        "build",
        "--compile",
        join(FIXTURES, "compiled-host.ts"),
        ...REMOTE_WORKER_ENTRYPOINTS.map((e) => join(ROOT, e)),
        "--outfile",
        binary,
      ],
      { cwd: ROOT, stderr: "pipe", stdout: "pipe" },
    );
    expect(build.exitCode, build.stderr.toString()).toBe(0);
    // outside the repository: no tsconfig paths, no node_modules to fall back on
    const example = join(tmp, "example-remote");
    cpSync(EXAMPLE_DIR, example, { recursive: true });
    cpSync(join(FIXTURES, "eliza-style.ts"), join(tmp, "eliza-style.ts"));
    const env = { PATH: process.env.PATH!, BUN_BE_BUN: "" };
    const run = (args: string[]) => {
      const proc = Bun.spawnSync([binary, ...args], { cwd: tmp, env, stdout: "pipe", stderr: "pipe" });
      expect(proc.exitCode, proc.stderr.toString()).toBe(0);
      return JSON.parse(proc.stdout.toString().trim().split("\n").at(-1)!) as Record<
        string,
        { result: { output: string }; sent: string[]; pid: boolean }
      >;
    };
    const notes = run([example, "worker.ts", "REMEMBER_NOTE", "compiled note"]);
    for (const transport of ["worker", "process"]) expect(notes[transport]!.sent).toEqual(["Compiled: compiled note"]);
    expect([notes.worker!.pid, notes.process!.pid]).toEqual([false, true]);
    const eliza = run([tmp, "eliza-style.ts", "HELLO", "binary"]);
    expect(eliza.worker!.result.output).toBe("hello binary");
    expect(eliza.process!.result.output).toBe("hello binary");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}, 60_000);
