import { REMOTE_PARENT_CHECK_MS } from "../limits.ts";

const PR_SET_PDEATHSIG = 1;
const SIGKILL = 9;
const LIBC_NAMES = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1", "libc.so"];

export type ParentDeathMechanism = "pdeathsig" | "watchdog";

/** prctl(PR_SET_PDEATHSIG, SIGKILL) through bun:ffi (~0.5 ms). False when there is no Linux libc to call. */
async function setParentDeathSignal(): Promise<boolean> {
  if (process.platform !== "linux") return false;
  const { dlopen, FFIType } = await import("bun:ffi");
  const i32 = FFIType.i32;
  const u64 = FFIType.u64;
  for (const name of LIBC_NAMES) {
    try {
      const libc = dlopen(name, { prctl: { args: [i32, u64, u64, u64, u64], returns: i32 } });
      const ok = libc.symbols.prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) === 0;
      libc.close();
      if (ok) return true;
    } catch {
      // this libc name does not exist here; try the next one
    }
  }
  return false;
}

/**
 * A thread of its own that checks the parent every `everyMs`: its timer runs while the plugin's thread spins, and it
 * kills the whole process once `process.ppid` is no longer the parent.
 */
export function startParentWatchdog(parentPid: number, everyMs = REMOTE_PARENT_CHECK_MS): Worker {
  const code =
    `setInterval(() => { if (process.ppid !== ${parentPid}) process.kill(process.pid, "SIGKILL"); }, ${everyMs});`;
  const worker = new Worker(URL.createObjectURL(new Blob([code], { type: "text/javascript" })));
  worker.unref();
  return worker;
}

/**
 * Make this plugin subprocess die with the host that started it, even while the plugin spins at 100 % CPU (an idle
 * one also ends on stdin's EOF): the kernel's parent-death signal on Linux, else a watchdog thread. The parent may
 * have died before the signal was set; then this process is already an orphan and ends here.
 */
export async function dieWithParent(parentPid: number): Promise<ParentDeathMechanism> {
  const mechanism: ParentDeathMechanism = (await setParentDeathSignal()) ? "pdeathsig" : "watchdog";
  if (mechanism === "watchdog") startParentWatchdog(parentPid);
  if (process.ppid !== parentPid) process.kill(process.pid, "SIGKILL");
  return mechanism;
}
