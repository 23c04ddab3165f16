/**
 * Which source modules a channel process (`prx channel run <name>`) has evaluated when it prints its "running" line,
 * from source and from the compiled binary (its loaded chunks mapped back to modules, as in start-modules.ts). The
 * preload reports them before the line is written, so nothing loaded after it counts. From source the build has no
 * identity and would not use the config cache: one is defined, so a source start reads the cache as the binary does.
 */
import { join } from "node:path";
import { BINARY, ensureBinary, ROOT } from "./binary.ts";
import { chunkModules, type StartFrom } from "./start-modules.ts";

const PRELOAD = join(ROOT, "test", "gateway", "fixtures", "report-modules.ts");
const SOURCE_BUILD_ID = "channel-start-modules-test";

/** `dir`'s config.toml is written by the caller, `env` holds the channel's secrets. Call twice for a warm start. */
export async function channelStartModules(dir: string, name: string, env: Record<string, string>, from: StartFrom): Promise<string[]> {
  const args = ["channel", "run", name, "-w", dir];
  const environment: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    ...env,
    PRX_TEST_REPORT_AT: `prx channel ${name} running`,
    PRX_TEST_REPORT_DELAY_MS: "0",
  };
  let argv: string[];
  if (from === "binary") {
    await ensureBinary();
    argv = [BINARY, ...args];
    environment.BUN_OPTIONS = `--preload ${PRELOAD}`;
  } else {
    const define = `PRX_BUILD_ID=${JSON.stringify(SOURCE_BUILD_ID)}`;
    argv = [process.execPath, "--define", define, "--preload", PRELOAD, join(ROOT, "src", "cli", "main.ts"), ...args];
  }
  const proc = Bun.spawn(argv, { env: environment, stdout: "ignore", stderr: "pipe" });
  const stderr = await new Response(proc.stderr).text();
  if ((await proc.exited) !== 0) throw new Error(`prx channel run (${from}) failed:\n${stderr}`);
  const line = stderr.split("\n").find((l) => l.startsWith("LOADED "));
  if (!line) throw new Error(`prx channel run (${from}) did not report its modules; stderr:\n${stderr}`);
  const loaded = JSON.parse(line.slice("LOADED ".length)) as string[];
  if (from === "source") return loaded;
  const modulesOf = chunkModules();
  return [...new Set([...modulesOf("/$bunfs/root/prx"), ...loaded.flatMap(modulesOf)])];
}
