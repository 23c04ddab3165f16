/**
 * Which source modules a starting gateway (or a one-shot `prx agent -m`) has evaluated, from source
 * (`bun src/cli/main.ts`) and from the compiled binary. The binary is split into chunks: a chunk's modules are evaluated together, so a lazy module that the
 * bundler put beside an eager one would load at start. The binary's loaded chunks are mapped back to modules with
 * the metafile build.ts writes beside it (dist/prx.meta.json).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, ensureBinary, ROOT } from "./binary.ts";

export type StartFrom = "source" | "binary";

const PRELOAD = join(ROOT, "test", "gateway", "fixtures", "report-modules.ts");
const PRELOAD_AT_EXIT = join(ROOT, "test", "fixtures", "report-modules-at-exit.ts");
/**
 * From source the build has no identity, so the validated-config cache (src/config/cache.ts) is off and every start
 * parses config.toml; defining one makes a source start read the cache as the binary's second start does.
 */
const SOURCE_BUILD_ID = "start-modules-test";

interface Metafile {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}

export function chunkModules(): (loaded: string) => string[] {
  const metaPath = `${BINARY}.meta.json`;
  if (!existsSync(metaPath)) throw new Error(`${metaPath} is missing: rebuild the binary with \`bun run build\``);
  const meta = JSON.parse(readFileSync(metaPath, "utf8")) as Metafile;
  // "/$bunfs/root/chunk-x.js" -> "./chunk-x.js"; the entry is "./prx"
  return (loaded) => {
    const key = `./${loaded.replace(/^\/\$bunfs\/root\//, "")}`;
    return Object.keys(meta.outputs[key]?.inputs ?? {}).map((input) => `/${input}`);
  };
}

/**
 * Start `prx gateway` in `dir` (its config.toml written by the caller), and return the modules evaluated once it
 * listens and its plugin runtime has had time to start (see the preload fixture). Paths end in "/src/..." or
 * "/node_modules/...".
 */
export async function gatewayStartModules(dir: string, from: StartFrom): Promise<string[]> {
  return startModules(["gateway", "--port", "0", "-w", dir], dir, from, PRELOAD);
}

/**
 * Run `prx agent -w dir -m hello` (config.toml written by the caller) and return the modules evaluated by its exit.
 * The first start in a workspace validates config.toml and caches it: call twice to see a warm start.
 */
export async function agentTurnModules(dir: string, from: StartFrom): Promise<string[]> {
  return startModules(["agent", "-w", dir, "-m", "hello"], dir, from, PRELOAD_AT_EXIT);
}

/** Run `prx <args>` with `preload` reporting the modules evaluated; `extraEnv` adds to a minimal environment. */
export async function startModules(args: string[], dir: string, from: StartFrom, preload: string, extraEnv: Record<string, string> = {}): Promise<string[]> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, ...extraEnv };
  let argv: string[];
  if (from === "binary") {
    await ensureBinary();
    argv = [BINARY, ...args];
    // a compiled Bun binary honours BUN_OPTIONS: the same preload runs inside it
    env.BUN_OPTIONS = `--preload ${preload}`;
  } else {
    const define = `PRX_BUILD_ID=${JSON.stringify(SOURCE_BUILD_ID)}`;
    argv = [process.execPath, "--define", define, "--preload", preload, join(ROOT, "src", "cli", "main.ts"), ...args];
  }
  const proc = Bun.spawn(argv, { env, stdout: "ignore", stderr: "pipe" });
  const stderr = await new Response(proc.stderr).text();
  if ((await proc.exited) !== 0) throw new Error(`prx ${args[0]} (${from}) failed:\n${stderr}`);
  const line = stderr.split("\n").find((l) => l.startsWith("LOADED "));
  if (!line) throw new Error(`prx ${args[0]} (${from}) did not report its modules; stderr:\n${stderr}`);
  const loaded = JSON.parse(line.slice("LOADED ".length)) as string[];
  if (from === "source") return loaded;
  const modulesOf = chunkModules();
  return [...new Set([...modulesOf("/$bunfs/root/prx"), ...loaded.flatMap(modulesOf)])];
}
