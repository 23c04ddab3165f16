import { PrxError } from "../../core/errors.ts";
import { NPM_INSTALL_ERROR_CHARS, NPM_INSTALL_TIMEOUT_MS } from "./limits.ts";

export interface BunInstallOptions {
  /** Run packages' install scripts (off by default: a package's postinstall is code run at install time). */
  allowScripts: boolean;
  env?: Record<string, string | undefined>;
}

/**
 * `bun <args>` in `dir` with the Bun inside prx: the running executable (the compiled prx acts as the bun CLI with
 * BUN_BE_BUN=1, and bun itself ignores it), so nothing but prx needs to be installed. The lockfile (bun.lock) is
 * written beside package.json and kept. Throws with the installer's last output when it fails.
 */
export async function runBun(dir: string, args: string[], options: BunInstallOptions): Promise<void> {
  const argv = [process.execPath, ...args, ...(options.allowScripts ? [] : ["--ignore-scripts"])];
  const proc = Bun.spawn(argv, {
    cwd: dir,
    env: { ...(options.env ?? process.env), BUN_BE_BUN: "1" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    timeout: NPM_INSTALL_TIMEOUT_MS,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code === 0) return;
  const said = `${stderr}\n${stdout}`.trim().slice(-NPM_INSTALL_ERROR_CHARS);
  const why = proc.signalCode ? `was stopped (${proc.signalCode}; at most ${NPM_INSTALL_TIMEOUT_MS} ms)` : `exited with code ${code}`;
  throw new PrxError("PLUGIN_LOAD", `bun ${args.join(" ")} in ${dir} ${why}:\n${said}`, {
    hint: "check the package name and version, and that the npm registry is reachable",
  });
}
