/**
 * The plugin kit through dist/prx alone (nothing else installed is used: the binary bundles, builds with its embedded
 * QuickJS engine and runs the tests with the bun built into it): `new` -> `test` for every kind, `build`'s report,
 * build errors with file:line, `pack` -> `install` -> a turn that uses the plugin.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI, type FakeServer } from "../../fakes/index.ts";
import { ensureBinary, fakeProviderConfig, runPrx } from "../../helpers/binary.ts";
import { PLUGIN_KINDS } from "../../../src/plugins/kit/scaffold.ts";
import { TEST_KIT_CACHE, tempDir } from "./helpers.ts";

setDefaultTimeout(60_000);

const root = tempDir("prx-kit-cli-");
let fake: FakeServer;

beforeAll(async () => {
  await ensureBinary();
  fake = startFakeOpenAI();
}, 300_000);
afterAll(async () => {
  await fake.stop();
  root.remove();
});

const prx = (args: string[]) => runPrx(args, { env: { PRX_KIT_CACHE: TEST_KIT_CACHE, PRX_LOG: "error" }, timeoutMs: 60_000 });

describe("prx plugins new, then prx plugins test, from the binary alone", () => {
  for (const kind of PLUGIN_KINDS) {
    test(`--kind ${kind}: the scaffolded plugin builds and its own tests pass against the sandbox`, async () => {
      const dir = join(root.dir, `new-${kind}`);
      const created = await prx(["plugins", "new", `new-${kind}`, "--kind", kind, "--dir", dir]);
      expect(created.code).toBe(0);
      expect(created.stdout).toContain(`(a ${kind} plugin)`);
      const tested = await prx(["plugins", "test", dir]);
      expect(tested.stderr).toContain(" 0 fail");
      expect(tested.stderr).toMatch(/ [1-9]\d* pass/);
      expect(tested.stdout).toContain(`${dir}: valid`);
      if (kind !== "remote") expect(tested.stdout).toMatch(new RegExp(`^built new-${kind}: plugin\\.wasm, [\\d.]+ (MB|KB) in [\\d.]+ m?s$`, "m"));
      expect(tested.code).toBe(0);
    });
  }
});

describe("prx plugins build", () => {
  test("reports the component's size, world and build time; an unchanged plugin is not built again", async () => {
    const dir = join(root.dir, "reported");
    await prx(["plugins", "new", "reported", "--kind", "storage", "--dir", dir]);
    const first = await prx(["plugins", "build", dir, "--json"]);
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout) as { bytes: number; ms: number; world: string; upToDate: boolean };
    expect(report).toMatchObject({ world: "storage", upToDate: false });
    expect(report.bytes).toBeGreaterThan(100_000);
    const again = await prx(["plugins", "build", dir]);
    expect(again.stdout).toMatch(/^reported: .*plugin\.wasm is up to date \([\d.]+ MB, storage world\)$/m);
  });

  test("a build error names the file, line and column, and exits 1", async () => {
    const dir = join(root.dir, "broken");
    await prx(["plugins", "new", "broken", "--kind", "tool", "--dir", dir]);
    const source = join(dir, "src/plugin.ts");
    writeFileSync(source, readFileSync(source, "utf8").replace("const words =", "const words = ("));
    const result = await prx(["plugins", "build", dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: src\/plugin\.ts does not build:\nsrc\/plugin\.ts:\d+:\d+: error: /m);
  });

  test("usage: --kind is required and an unknown kind suggests the closest", async () => {
    const missing = await prx(["plugins", "new", "x"]);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining("--kind is required: tool, middleware, hook, cron, provider, storage, remote")]);
    const typo = await prx(["plugins", "new", "x", "--kind", "toll"]);
    expect([typo.code, typo.stderr]).toEqual([2, expect.stringContaining("unknown kind 'toll'; did you mean 'tool'?")]);
  });
});

describe("prx plugins pack and install", () => {
  test("a pack installs into a workspace (twice only with --force), and the plugin serves a turn", async () => {
    const dir = join(root.dir, "shipped");
    await prx(["plugins", "new", "shipped", "--kind", "tool", "--dir", dir]);
    const out = join(root.dir, "shipped.tar.gz");
    const packed = await prx(["plugins", "pack", dir, "--out", out]);
    expect(packed.code).toBe(0);
    expect(packed.stdout).toMatch(/^packed shipped 0\.1\.0: .*shipped\.tar\.gz, 3 files, [\d.]+ (KB|MB)\n {2}content sha256 [0-9a-f]{64}$/m);
    const ws = join(root.dir, "ws-shipped");
    await Bun.write(join(ws, "config.toml"), fakeProviderConfig(fake.url));
    const installed = await prx(["plugins", "install", out, "-w", ws]);
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain(`installed shipped 0.1.0 into ${join(ws, "plugins", "shipped")}`);
    const again = await prx(["plugins", "install", out, "-w", ws]);
    expect([again.code, again.stderr]).toEqual([1, expect.stringContaining("shipped is already installed")]);
    expect((await prx(["plugins", "install", out, "-w", ws, "--force"])).stdout).toContain("(replaced the one installed)");
    const turn = await prx(["agent", "-m", 'use tool shipped {"text":"one two three"}', "-w", ws]);
    expect(turn.stdout.trim()).toBe("tool said: words: 3");
  });
});
