/**
 * Which source modules a channel process (`prx channel run <name>`) has evaluated when it prints its "running" line,
 * from source and from the compiled binary (its loaded chunks mapped back to modules, as in start-modules.ts). The
 * preload reports them before the line is written, so nothing loaded after it counts. From source the build has no
 * identity and would not use the config cache: one is defined, so a source start reads the cache as the binary does.
 */
import { join } from "node:path";
import { ROOT } from "./binary.ts";
import { startModules, type StartFrom } from "./start-modules.ts";

const PRELOAD = join(ROOT, "test", "gateway", "fixtures", "report-modules.ts");

/** `dir`'s config.toml is written by the caller, `env` holds the channel's secrets. Call twice for a warm start. */
export async function channelStartModules(dir: string, name: string, env: Record<string, string>, from: StartFrom): Promise<string[]> {
  return startModules(["channel", "run", name, "-w", dir], dir, from, PRELOAD, {
    ...env,
    PRX_TEST_REPORT_AT: `prx channel ${name} running`,
    PRX_TEST_REPORT_DELAY_MS: "0",
  });
}
