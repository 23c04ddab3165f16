/**
 * The official elizaOS plugin template as a new user gets it: `@elizaos/plugin-starter` and `@elizaos/core` installed
 * from the npm registry with npm. Installed once into a cache directory under the OS temp dir, keyed by the versions,
 * and reused by later runs. When the registry cannot be reached the caller skips, printing why.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const STARTER_VERSION = "1.7.2";
export const CORE_VERSION = "1.7.2";
const PACKAGES = [`@elizaos/plugin-starter@${STARTER_VERSION}`, `@elizaos/core@${CORE_VERSION}`];
const KEY = `plugin-starter@${STARTER_VERSION}+core@${CORE_VERSION}`;
export const STARTER_CACHE = join(tmpdir(), "prx-eliza-npm", KEY);
const MARKER = join(STARTER_CACHE, ".installed");
const NETWORK_ERRORS = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|network|socket hang up/i;

export type StarterInstall = { nodeModules: string } | { skip: string };

/** The line of npm's stderr that names the network failure. */
const networkLine = (stderr: string) => stderr.split("\n").find((l) => NETWORK_ERRORS.test(l))?.trim() ?? "timed out";

function npm(args: string[], cwd: string, timeoutMs: number) {
  return Bun.spawnSync(["npm", ...args], { cwd, env: process.env, stdout: "pipe", stderr: "pipe", timeout: timeoutMs });
}

/** The installed node_modules, or why the test cannot run here (no npm, registry unreachable). */
export function installStarter(): StarterInstall {
  if (existsSync(MARKER) && readFileSync(MARKER, "utf8") === KEY) return { nodeModules: join(STARTER_CACHE, "node_modules") };
  if (!Bun.which("npm")) return { skip: "npm is not on PATH, so the elizaOS packages cannot be installed from the registry" };
  mkdirSync(join(STARTER_CACHE, ".."), { recursive: true });
  const probe = npm(["view", PACKAGES[0]!, "version"], tmpdir(), 60_000);
  if (probe.exitCode !== 0) {
    const err = probe.stderr.toString();
    if (NETWORK_ERRORS.test(err) || probe.exitCode === null) {
      return { skip: `the npm registry is unreachable (npm view ${PACKAGES[0]}): ${networkLine(err)}` };
    }
    throw new Error(`npm view ${PACKAGES[0]} failed: ${err}`);
  }
  // install next to the cache and rename when complete, so a half-finished install is never reused
  const staging = `${STARTER_CACHE}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, "package.json"), JSON.stringify({ name: "prx-eliza-compat", private: true }));
  const install = npm(["install", "--no-audit", "--no-fund", "--ignore-scripts", ...PACKAGES], staging, 300_000);
  if (install.exitCode !== 0) {
    rmSync(staging, { recursive: true, force: true });
    const err = install.stderr.toString();
    if (NETWORK_ERRORS.test(err)) return { skip: `npm install could not reach the registry: ${networkLine(err)}` };
    throw new Error(`npm install ${PACKAGES.join(" ")} failed: ${err}`);
  }
  writeFileSync(join(staging, ".installed"), KEY);
  rmSync(STARTER_CACHE, { recursive: true, force: true });
  renameSync(staging, STARTER_CACHE);
  return { nodeModules: join(STARTER_CACHE, "node_modules") };
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
