/**
 * Which source modules a starting gateway has evaluated, from source (`bun src/cli/main.ts`) and from the compiled
 * binary. The binary is split into chunks: a chunk's modules are evaluated together, so a lazy module that the
 * bundler put beside an eager one would load at start. The binary's loaded chunks are mapped back to modules with
 * the metafile build.ts writes beside it (dist/prx.meta.json).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, ensureBinary, ROOT } from "./binary.ts";

export type StartFrom = "source" | "binary";

const PRELOAD = join(ROOT, "test", "gateway", "fixtures", "report-modules.ts");

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
  const args = ["gateway", "--port", "0", "-w", dir];
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir };
  let argv: string[];
  if (from === "binary") {
    await ensureBinary();
    argv = [BINARY, ...args];
    // a compiled Bun binary honours BUN_OPTIONS: the same preload runs inside it
    env.BUN_OPTIONS = `--preload ${PRELOAD}`;
  } else {
    argv = [process.execPath, "--preload", PRELOAD, join(ROOT, "src", "cli", "main.ts"), ...args];
  }
  const proc = Bun.spawn(argv, { env, stdout: "ignore", stderr: "pipe" });
  const stderr = await new Response(proc.stderr).text();
  if ((await proc.exited) !== 0) throw new Error(`the gateway (${from}) failed:\n${stderr}`);
  const line = stderr.split("\n").find((l) => l.startsWith("LOADED "));
  if (!line) throw new Error(`the gateway (${from}) did not report its modules; stderr:\n${stderr}`);
  const loaded = JSON.parse(line.slice("LOADED ".length)) as string[];
  if (from === "source") return loaded;
  const modulesOf = chunkModules();
  return [...new Set([...modulesOf("/$bunfs/root/prx"), ...loaded.flatMap(modulesOf)])];
}
