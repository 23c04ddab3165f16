/** Names under which a Linux libc can be opened (glibc, musl on x86-64 and arm64, a generic link). */
export const LIBC_NAMES = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1", "libc.so"];

/** prctl option numbers from <linux/prctl.h> used by prx. */
export const PR_SET_PDEATHSIG = 1;
/** Orphans of our descendants are re-parented to us instead of to init, so they can be found and reaped. */
export const PR_SET_CHILD_SUBREAPER = 36;

/**
 * prctl(option, arg, 0, 0, 0) through bun:ffi (~0.5 ms, the FFI loads with the first call). True when the kernel
 * accepted it; false off Linux or when no libc can be opened.
 */
export async function prctl(option: number, arg: number): Promise<boolean> {
  if (process.platform !== "linux") return false;
  const { dlopen, FFIType } = await import("bun:ffi");
  const i32 = FFIType.i32;
  const u64 = FFIType.u64;
  for (const name of LIBC_NAMES) {
    try {
      const libc = dlopen(name, { prctl: { args: [i32, u64, u64, u64, u64], returns: i32 } });
      const accepted = libc.symbols.prctl(option, arg, 0, 0, 0) === 0;
      libc.close();
      if (accepted) return true;
    } catch {
      // this libc name does not exist here; try the next one
    }
  }
  return false;
}
