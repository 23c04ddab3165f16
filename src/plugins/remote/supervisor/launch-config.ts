import { getLogLevel } from "../../../core/logger.ts";
import type { AgentIdentity } from "../agent.ts";
import { memoryCapOf } from "../host/memory/index.ts";
import type { StartRemotePluginOptions } from "../types.ts";
import type { LaunchConfig } from "../worker-runtime/launcher.ts";

/** What the host tells a new Worker or subprocess of a plugin (PRX_REMOTE_PLUGIN_LAUNCH, LaunchConfigSchema). */
export function launchConfigFor(o: StartRemotePluginOptions, agent: AgentIdentity): LaunchConfig {
  return {
    name: o.name,
    entry: o.entryPath,
    settings: o.settings,
    rpcTimeoutMs: o.rpcTimeoutMs,
    agent,
    logLevel: getLogLevel(),
    maxMemoryMb: memoryCapOf(o),
    ...(o.memoryCheckMs !== undefined ? { memoryCheckMs: o.memoryCheckMs } : {}),
    parentPid: process.pid,
  };
}
