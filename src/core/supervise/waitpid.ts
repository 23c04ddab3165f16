import { LIBC_NAMES } from "./prctl.ts";

/** waitpid(2) option: return at once when the child has not exited yet. */
const WNOHANG = 1;

type WaitPid = (pid: number) => number;
let loaded: Promise<WaitPid | null> | undefined;

async function load(): Promise<WaitPid | null> {
  if (process.platform !== "linux") return null;
  const { dlopen, FFIType } = await import("bun:ffi");
  for (const name of LIBC_NAMES) {
    try {
      const libc = dlopen(name, { waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 } });
      return (pid) => libc.symbols.waitpid(pid, null, WNOHANG);
    } catch {
      // this libc name does not exist here; try the next one
    }
  }
  return null;
}

/**
 * Collect the exit status of processes re-parented to prx as its subreaper. Bun waits only for the children it
 * spawned, so an adopted orphan that was killed would stay a zombie. Never pass a pid Bun spawned: its `exited`
 * would never learn the status. Resolves with the pids still not reaped (running, or not our children).
 */
export async function reapAdopted(pids: number[]): Promise<number[]> {
  const waitpid = await (loaded ??= load());
  if (!waitpid) return pids;
  return pids.filter((pid) => waitpid(pid) === 0);
}
