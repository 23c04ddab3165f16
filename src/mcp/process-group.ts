import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { MCP_KILL_GRACE_MS } from "./limits.ts";

/** Process groups of stdio servers still running, killed if prx exits without closing them. */
const running = new Set<number>();
let hooked = false;

/** Kill the group led by `pid` should the process exit first; the returned function forgets it. */
export function reapOnExit(pid: number): () => void {
  running.add(pid);
  if (!hooked) {
    hooked = true;
    process.once("exit", () => {
      for (const group of running) signalGroup(group, "SIGKILL");
    });
  }
  return () => running.delete(pid);
}

/** Send `signal` to every process of the group led by `pid`; false when none is left. */
export function signalGroup(pid: number, signal: NodeJS.Signals, logger?: Logger): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") {
      logger?.warn(`cannot send ${signal} to the process group of MCP server pid ${pid}`, { error: errorMessage(error) });
    }
    return false;
  }
}

function exitedWithin(proc: Bun.Subprocess, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([proc.exited.then(() => true), timeout]).finally(() => clearTimeout(timer));
}

/**
 * Stop a stdio server as the MCP specification asks: close its stdin and give it MCP_KILL_GRACE_MS to exit, then
 * SIGTERM, then after another grace SIGKILL (`now`: skip the polite part). Whatever the server left behind in its
 * process group is killed too; resolves once the server is reaped.
 */
export async function stopProcessGroup(
  proc: Bun.Subprocess<"pipe", "pipe", "pipe">,
  logger: Logger,
  now = false,
): Promise<void> {
  const alive = () => proc.exitCode === null && proc.signalCode === null;
  if (alive() && !now) {
    try {
      await proc.stdin.end();
    } catch (error) {
      logger.debug("stdin of the MCP server was already closed", { error: errorMessage(error) });
    }
    await exitedWithin(proc, MCP_KILL_GRACE_MS);
  }
  if (alive()) {
    signalGroup(proc.pid, "SIGTERM", logger);
    if (!(await exitedWithin(proc, MCP_KILL_GRACE_MS))) signalGroup(proc.pid, "SIGKILL", logger);
  }
  await proc.exited;
  signalGroup(proc.pid, "SIGKILL");
}
