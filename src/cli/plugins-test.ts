import { existsSync, readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { PrxError } from "../core/errors.ts";
import { buildPlugin, readKitManifest } from "../plugins/kit/build/build.ts";
import { checkPluginDir } from "../plugins/kit/check.ts";
import { KIT_DIR, SOURCE_ENTRY, writeKitFiles } from "../plugins/kit/layout.ts";
import { throwawayWorkspace } from "../plugins/kit/sandbox/workspace.ts";
import { parseCommand, usageError } from "./args.ts";
import { formatCheck } from "./plugins-format.ts";
import { formatBytes, formatMs } from "./format.ts";

const USAGE = `Usage: prx plugins test [dir]
  Builds the plugin (kit plugins), runs validate's admission checks on it, then its tests (plugin.test.ts and any
  other *.test.ts of the folder) with the bun built into prx. @prx/kit/test's loadPlugin() loads the plugin into a
  real prx sandbox: the runtime's loader and adapters, host imports backed by a throw-away workspace.
`;

/** Test files of a plugin folder: `*.test.ts` / `*.test.js` outside node_modules and .prx-kit. */
export function testFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((path) => /\.test\.(ts|js|mts|mjs)$/.test(path))
    .filter((path) => !path.split(/[\\/]/).some((part) => part === "node_modules" || part === KIT_DIR))
    .sort();
}

/**
 * How the tests find prx: the compiled binary runs itself as bun (`BUN_BE_BUN=1 prx test`) and its tests start
 * `prx __plugin-sandbox`; from source, bun runs the tests and the sandbox runs main.ts.
 */
export function testRunner(): { cmd: string[]; env: Record<string, string | undefined> } {
  const compiled = (process.argv[1] ?? "").startsWith("/$bunfs/");
  if (compiled) return { cmd: [process.execPath, "test"], env: { BUN_BE_BUN: "1", PRX_BIN: process.execPath, PRX_ENTRY: undefined } };
  return { cmd: [process.execPath, "test"], env: { BUN_BE_BUN: undefined, PRX_BIN: process.execPath, PRX_ENTRY: resolve(process.argv[1]!) } };
}

/** The process environment with `overrides` applied (undefined removes a variable). */
export function envWith(overrides: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...process.env, ...overrides })) if (value !== undefined) env[key] = value;
  return env;
}

export async function pluginsTest(argv: string[], _globals: { workspace?: string }): Promise<number> {
  const { values, positionals } = parseCommand("prx plugins test", argv, {});
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length > 1) throw usageError(`prx plugins test: unexpected argument '${positionals[1]}'`);
  const dir = resolve(positionals[0] ?? ".");
  const manifest = readKitManifest(dir);
  if (manifest.plugin.runtime === "remote") writeKitFiles(dir, { remote: true });
  else if (existsSync(join(dir, SOURCE_ENTRY))) {
    const built = await buildPlugin(dir);
    process.stdout.write(
      built.upToDate
        ? `${built.name}: ${relative(dir, built.wasmPath)} is up to date (${formatBytes(built.bytes)})\n`
        : `built ${built.name}: ${relative(dir, built.wasmPath)}, ${formatBytes(built.bytes)} in ${formatMs(built.ms)}\n`,
    );
  }
  const { workspace, remove } = throwawayWorkspace();
  let ok: boolean;
  try {
    const check = await checkPluginDir(dir, workspace);
    ok = check.ok;
    process.stdout.write(formatCheck(dir, check) + "\n");
  } finally {
    remove();
  }
  if (!ok) {
    throw new PrxError("PLUGIN_ADMISSION", `${manifest.plugin.name} does not pass the admission checks (see above); its tests did not run`, {
      hint: "fix what the check reports, then run `prx plugins test` again",
    });
  }
  const files = testFiles(dir);
  if (files.length === 0) {
    process.stdout.write(`no tests in ${dir} (plugin.test.ts): only the admission checks ran\n`);
    return 0;
  }
  const runner = testRunner();
  const proc = Bun.spawn([...runner.cmd, ...files.map((f) => `./${f}`)], {
    cwd: dir,
    env: envWith(runner.env),
    stdin: "ignore",
    stdout: "inherit",
    stderr: "inherit",
  });
  return proc.exited;
}
