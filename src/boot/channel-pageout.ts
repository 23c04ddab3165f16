/**
 * A channel process hands back the pages of its own executable that only its start touched (a kept trick,
 * src/boot/tricks.ts). Bun's native code, its read-only data and the bytecode of prx's modules are mapped from the
 * binary and stay resident once read: an email channel process holds ~49 MB of them after its first turns, of which
 * its later turns use ~26 MB (the rest is module initialisation, the loader, the connections' and the agent host's
 * set-up). At its first CHANNEL_PAGEOUT_QUIET_PERIODS quiet periods (see channel-idle-gc.ts: once after start, once after
 * the first answered message) the process asks the kernel to reclaim its mappings of the binary
 * (madvise MADV_PAGEOUT): they are clean file pages, read again from the file if used again (the next message reads
 * its few MB back once); pages written since (relocations) and pages other processes map as well (a gateway's
 * children share its binary) are left where they are. Linux only; elsewhere, or where the kernel refuses, nothing
 * happens.
 */
import { readFileSync, readlinkSync } from "node:fs";
import { LIBC_NAMES } from "../core/supervise/prctl.ts";

/** Quiet periods at which the binary's pages are handed back: the one after start and the one after the first message. */
export const CHANNEL_PAGEOUT_QUIET_PERIODS = 2;

/** <asm-generic/mman-common.h>: reclaim these pages now (Linux 5.4+). */
export const MADV_PAGEOUT = 21;

/** A mapping of /proc/self/maps: start, length, permissions, path. */
export interface Mapping {
  start: number;
  length: number;
  perms: string;
  path: string;
}

/** The mappings of `path` in a /proc/<pid>/maps text. */
export function mappingsOf(maps: string, path: string): Mapping[] {
  const out: Mapping[] = [];
  for (const line of maps.split("\n")) {
    // "55d4c0a00000-55d4c5a00000 r-xp 00200000 fd:01 1234   /usr/local/bin/prx"
    const match = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \S+\s+(.+)$/.exec(line);
    if (!match || match[4] !== path) continue;
    const start = Number.parseInt(match[1]!, 16);
    out.push({ start, length: Number.parseInt(match[2]!, 16) - start, perms: match[3]!, path });
  }
  return out;
}

/** madvise(start, length, advice) === 0. */
export type Madvise = (start: number, length: number, advice: number) => boolean;

/** madvise through bun:ffi (loaded with the first call); null off Linux or when no libc opens. */
export async function libcMadvise(): Promise<Madvise | null> {
  if (process.platform !== "linux") return null;
  const { dlopen, FFIType } = await import("bun:ffi");
  for (const name of LIBC_NAMES) {
    try {
      const libc = dlopen(name, { madvise: { args: [FFIType.u64, FFIType.u64, FFIType.i32], returns: FFIType.i32 } });
      return (start, length, advice) => libc.symbols.madvise(start, length, advice) === 0;
    } catch {
      // this libc name does not exist here; try the next one
    }
  }
  return null;
}

/** The executable's mappings, named as the kernel names them (its resolved path). */
function ownMappings(): Mapping[] {
  return mappingsOf(readFileSync("/proc/self/maps", "utf8"), readlinkSync("/proc/self/exe"));
}

export interface BinaryPageout {
  /** A quiet period began (the idle collection ran): the first CHANNEL_PAGEOUT_QUIET_PERIODS hand the pages back. */
  quiet(): Promise<void>;
}

/** `mappings` and `madvise` are the process's own outside tests. */
export function binaryPageout(o: { mappings?: () => Mapping[]; madvise?: () => Promise<Madvise | null> } = {}): BinaryPageout {
  let left = CHANNEL_PAGEOUT_QUIET_PERIODS;
  let advise: Promise<Madvise | null> | null = null;
  return {
    async quiet() {
      if (left <= 0) return;
      left--;
      // without bun:ffi there is nothing to ask the kernel with: the pages stay, as they would without this
      const madvise = await (advise ??= (o.madvise ?? libcMadvise)().catch(() => null));
      if (!madvise) return;
      for (const mapping of (o.mappings ?? ownMappings)()) madvise(mapping.start, mapping.length, MADV_PAGEOUT);
    },
  };
}
