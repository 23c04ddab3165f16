import { memoryCapOf, memoryKill, processMemoryGuard, workerMemoryGuard, type MemoryGuard } from "../host/memory/index.ts";
import type { HostTransport } from "../transport/index.ts";
import type { KillReason, StartRemotePluginOptions } from "../types.ts";

/** The memory guard of one running transport: a subprocess is read from /proc, a Worker reports its heap. */
export function memoryGuardFor(
  transport: HostTransport,
  options: Pick<StartRemotePluginOptions, "maxMemoryMb" | "memoryCheckMs" | "memoryStaleMs" | "memoryTicker">,
  kill: (why: KillReason) => void,
  busy: () => boolean,
): MemoryGuard {
  const capMb = memoryCapOf(options);
  const guard = {
    capMb,
    onOver: (usedBytes: number, how: string) => kill(memoryKill(usedBytes, capMb, how)),
    busy,
    ...(options.memoryTicker && options.memoryCheckMs === undefined ? { ticker: options.memoryTicker } : {}),
    ...(options.memoryCheckMs !== undefined ? { checkMs: options.memoryCheckMs } : {}),
    ...(options.memoryStaleMs !== undefined ? { staleMs: options.memoryStaleMs } : {}),
  };
  return transport.kind === "process" && transport.pid !== null
    ? processMemoryGuard(transport.pid, guard)
    : workerMemoryGuard(guard);
}
