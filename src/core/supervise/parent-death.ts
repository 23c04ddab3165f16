import { prctl, PR_SET_PDEATHSIG } from "./prctl.ts";
import type { ParentDeathMechanism, WatchParentOptions } from "./types.ts";

const SIGKILL = 9;

/**
 * Call `onGone` when the process that started this one is gone: its IPC channel closed, or this process was
 * re-parented (its parent pid changed). For a child that can stop in order; the returned function stops watching.
 */
export function watchParent(onGone: () => void, options: WatchParentOptions): () => void {
  const parentPid = options.parentPid ?? (() => process.ppid);
  const parent = parentPid();
  const timer = setInterval(() => {
    if (parentPid() !== parent) onGone();
  }, options.intervalMs);
  timer.unref();
  process.on("disconnect", onGone);
  return () => {
    clearInterval(timer);
    process.off("disconnect", onGone);
  };
}

/**
 * A thread of its own that checks the parent every `everyMs`: its timer runs while this process's main thread
 * spins, and it kills the whole process once `process.ppid` is no longer `parentPid`.
 */
export function startParentWatchdog(parentPid: number, everyMs: number): Worker {
  const code =
    `setInterval(() => { if (process.ppid !== ${parentPid}) process.kill(process.pid, "SIGKILL"); }, ${everyMs});`;
  const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
  worker.unref();
  return worker;
}

/**
 * Make this process die with `parentPid`, even while its code spins at 100 % CPU: the kernel's parent-death signal
 * on Linux, else a watchdog thread checking every `checkEveryMs`. The parent may have died before the signal was
 * set; then this process is already an orphan and ends here.
 */
export async function dieWithParent(parentPid: number, checkEveryMs: number): Promise<ParentDeathMechanism> {
  const mechanism: ParentDeathMechanism = (await prctl(PR_SET_PDEATHSIG, SIGKILL)) ? "pdeathsig" : "watchdog";
  if (mechanism === "watchdog") startParentWatchdog(parentPid, checkEveryMs);
  if (process.ppid !== parentPid) process.kill(process.pid, "SIGKILL");
  return mechanism;
}
