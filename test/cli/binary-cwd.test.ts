/** The compiled binary ignores a .env and a bunfig.toml in the directory it is started from. */
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, ensureBinary } from "../helpers/binary.ts";

// each test runs the built binary several times; a loaded machine needs more than the default 5 s
setDefaultTimeout(60_000);

let dir: string;
beforeAll(async () => {
  await ensureBinary();
  dir = mkdtempSync(join(tmpdir(), "prx-cwd-"));
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a bunfig.toml preload and a .env in the working directory change nothing", async () => {
  const marker = join(dir, "preload-ran");
  writeFileSync(join(dir, "preload.ts"), `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "x");\n`);
  writeFileSync(join(dir, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
  writeFileSync(join(dir, ".env"), `PRX_WORKSPACE=${join(dir, "from-dotenv")}\n`);
  const home = join(dir, "home");
  const proc = Bun.spawn([BINARY, "doctor"], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  expect(stdout).toContain(`workspace: ${join(home, ".prx")}`);
  expect(stdout).not.toContain("from-dotenv");
  expect(existsSync(marker)).toBe(false);
});
