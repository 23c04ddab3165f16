/**
 * The official elizaOS plugin template as a new user gets it: `@elizaos/plugin-starter` and `@elizaos/core` installed
 * from the npm registry with npm. Installed once into a cache directory under the OS temp dir, keyed by the versions,
 * and reused by later runs. When the registry cannot be reached the caller skips, printing why.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tempWorkspace } from "../../helpers/workspace.ts";

export const STARTER_VERSION = "1.7.2";
export const CORE_VERSION = "1.7.2";
const STARTER_PACKAGES = [`@elizaos/plugin-starter@${STARTER_VERSION}`, `@elizaos/core@${CORE_VERSION}`];
const NPM_CACHE_ROOT = join(tmpdir(), "prx-eliza-npm");
export const STARTER_CACHE = cacheDir(STARTER_PACKAGES);
const NETWORK_ERRORS = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|network|socket hang up/i;

export type StarterInstall = { nodeModules: string } | { skip: string };

/** The line of npm's stderr that names the network failure. */
const networkLine = (stderr: string) => stderr.split("\n").find((l) => NETWORK_ERRORS.test(l))?.trim() ?? "timed out";

function npm(args: string[], cwd: string, timeoutMs: number) {
  return Bun.spawnSync(["npm", ...args], { cwd, env: process.env, stdout: "pipe", stderr: "pipe", timeout: timeoutMs });
}

function cacheDir(packages: readonly string[]): string {
  return join(NPM_CACHE_ROOT, packages.map((name) => name.replace(/^@elizaos\//, "")).join("+"));
}

/** The installed node_modules of the official template, or why the test cannot run here. */
export function installStarter(): StarterInstall {
  return installFromNpm(STARTER_PACKAGES);
}

/**
 * `packages` (exact versions) as npm installs them, cached by their names and versions: the node_modules, or why the
 * test cannot run here (no npm, registry unreachable).
 */
export function installFromNpm(packages: readonly string[]): StarterInstall {
  const cache = cacheDir(packages);
  const key = packages.join(" ");
  const marker = join(cache, ".installed");
  if (existsSync(marker) && readFileSync(marker, "utf8") === key) return { nodeModules: join(cache, "node_modules") };
  if (!Bun.which("npm")) return { skip: "npm is not on PATH, so the elizaOS packages cannot be installed from the registry" };
  mkdirSync(NPM_CACHE_ROOT, { recursive: true });
  const probe = npm(["view", packages[0]!, "version"], tmpdir(), 60_000);
  if (probe.exitCode !== 0) {
    const err = probe.stderr.toString();
    if (NETWORK_ERRORS.test(err) || probe.exitCode === null) {
      return { skip: `the npm registry is unreachable (npm view ${packages[0]}): ${networkLine(err)}` };
    }
    throw new Error(`npm view ${packages[0]} failed: ${err}`);
  }
  // install next to the cache and rename when complete, so a half-finished install is never reused
  const staging = `${cache}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, "package.json"), JSON.stringify({ name: "prx-eliza-compat", private: true }));
  const install = npm(["install", "--no-audit", "--no-fund", "--ignore-scripts", ...packages], staging, 300_000);
  if (install.exitCode !== 0) {
    rmSync(staging, { recursive: true, force: true });
    const err = install.stderr.toString();
    if (NETWORK_ERRORS.test(err)) return { skip: `npm install could not reach the registry: ${networkLine(err)}` };
    throw new Error(`npm install ${packages.join(" ")} failed: ${err}`);
  }
  writeFileSync(join(staging, ".installed"), key);
  rmSync(cache, { recursive: true, force: true });
  renameSync(staging, cache);
  return { nodeModules: join(cache, "node_modules") };
}

/** The three-line entry a new user writes. */
export const STARTER_ENTRY = `import plugin from "@elizaos/plugin-starter";
import { bootstrap } from "@elizaos/plugin-worker-runtime";
bootstrap(plugin);
`;

export function starterManifest(transport: "worker" | "process"): string {
  return `[plugin]
name = "starter"
version = "${STARTER_VERSION}"
runtime = "remote"

[remote]
entry = "worker.js"
transport = "${transport}"
ready_timeout_ms = 30000
`;
}

/**
 * A temp workspace (config.toml `config`) whose plugins/<name>/ runs `pkg` from the npm install `nodeModules` as a
 * remote plugin: plugin.toml, the three-line worker.js, node_modules linked. `cleanups` gets its removal.
 */
export function npmPluginWorkspace(
  nodeModules: string,
  plugin: { name: string; pkg: string; version: string; transport: "worker" | "process"; config?: string; manifestExtra?: string },
  cleanups: Array<() => void>,
): string {
  const ws = tempWorkspace(plugin.config ?? "", { prefix: `prx-eliza-${plugin.name}-` });
  cleanups.push(ws.cleanup);
  const dir = join(ws.dir, "plugins", plugin.name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "plugin.toml"),
    `[plugin]\nname = "${plugin.name}"\nversion = "${plugin.version}"\nruntime = "remote"\n\n[remote]\nentry = "worker.js"\n` +
      `transport = "${plugin.transport}"\nready_timeout_ms = 30000\n${plugin.manifestExtra ?? ""}`,
  );
  writeFileSync(join(dir, "worker.js"), `import plugin from "${plugin.pkg}";\nimport { bootstrap } from "@elizaos/plugin-worker-runtime";\nbootstrap(plugin);\n`);
  symlinkSync(nodeModules, join(dir, "node_modules"), "dir");
  return ws.dir;
}
