import { REMOTE_DEFAULT_MAX_MEMORY_MB } from "../../limits.ts";
import type { KillReason, StartRemotePluginOptions } from "../../types.ts";

/** The plugin's `[resources] max_memory_mb`, or the remote default. */
export function memoryCapOf(options: Pick<StartRemotePluginOptions, "maxMemoryMb">): number {
  return options.maxMemoryMb ?? REMOTE_DEFAULT_MAX_MEMORY_MB;
}

const mb = (bytes: number) => Math.round(bytes / (1024 * 1024));

/** Why a plugin over its cap is killed, as its pending calls and status say it. */
export function memoryKill(usedBytes: number, capMb: number, how: string): KillReason {
  return {
    reason: `it used ${mb(usedBytes)} MB, over its [resources] max_memory_mb = ${capMb} (${how})`,
    code: "LIMIT_EXCEEDED",
    hint: "raise max_memory_mb in the [resources] table of its plugin.toml, or find what the plugin keeps in memory",
  };
}
