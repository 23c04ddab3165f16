import { z } from "zod";
import { dieWithParent } from "../../../core/supervise/index.ts";
import { AgentIdentitySchema } from "../agent.ts";
import { REMOTE_DEFAULT_RPC_TIMEOUT_MS, REMOTE_PARENT_CHECK_MS } from "../limits.ts";
import { toWireError } from "../wire-error.ts";
import { bootstrap } from "./bootstrap.ts";
import { createStdioChannel, createWorkerChannel, type ChannelProblem } from "./channel.ts";
import { guardConsole } from "./console-guard.ts";
import { startMemoryReports } from "./memory-report.ts";
import { setLaunchContext, wasBootstrapped } from "./launch.ts";
import { registerWorkerRuntimeResolver } from "./resolver.ts";
import { HostLogLevels } from "./runtime-logger.ts";
import type { Plugin } from "./types.ts";

/** Env var carrying the launch config (JSON) from the host to the Worker or subprocess. */
export const REMOTE_LAUNCH_ENV = "PRX_REMOTE_PLUGIN_LAUNCH";

export const LaunchConfigSchema = z.object({
  name: z.string(),
  entry: z.string().min(1),
  settings: z.record(z.string(), z.json()).default({}),
  rpcTimeoutMs: z.number().int().positive().default(REMOTE_DEFAULT_RPC_TIMEOUT_MS),
  /** runtime.agentId, runtime.character, runtime.getConversationLength() (from `[agent]` of config.toml). */
  agent: AgentIdentitySchema.optional(),
  /** The host's log level: runtime.logger lines below it are not sent. */
  logLevel: z.enum(HostLogLevels).optional(),
  /** `[resources] max_memory_mb`: a Worker reports its heap at once when a call leaves it over this. */
  maxMemoryMb: z.number().int().positive().optional(),
  /** How often a Worker reports its heap (REMOTE_MEMORY_CHECK_MS unless the host was given another). */
  memoryCheckMs: z.number().int().positive().optional(),
  /** The host's pid: a subprocess dies with it (see core/supervise/parent-death.ts). */
  parentPid: z.number().int().positive().optional(),
});
export type LaunchConfig = z.infer<typeof LaunchConfigSchema>;

function isPluginLike(value: unknown): value is Plugin {
  return !!value && typeof value === "object" && typeof (value as { name?: unknown }).name === "string";
}

/**
 * Run a plugin entry inside this Worker thread or subprocess: set up the channel and the module resolver, import the
 * entry, and bootstrap its default export unless the entry called bootstrap() itself.
 */
export async function launchPlugin(mode: "worker" | "stdio", rawConfig: string | undefined): Promise<void> {
  let sink: (problem: ChannelProblem) => void = (p) => process.stderr.write(`[prx remote] ${p.kind}: ${p.detail}\n`);
  const onProblem = (p: ChannelProblem) => sink(p);
  const exit = (code: number) => setTimeout(() => process.exit(code), 0);
  const channel = mode === "stdio" ? createStdioChannel(onProblem, () => exit(0)) : createWorkerChannel(onProblem);
  const failInit = (error: unknown) => {
    channel.send({ type: "init-failed", error: toWireError(error) });
    channel.close();
    exit(1);
  };
  let config: LaunchConfig;
  try {
    config = LaunchConfigSchema.parse(JSON.parse(rawConfig ?? "null"));
  } catch (error) {
    return failInit(
      new Error(`remote plugin launcher: missing or invalid ${REMOTE_LAUNCH_ENV}: ${(error as Error).message}`),
    );
  }
  // stdio: stdout carries the protocol. Worker: stdout is the host command's output (an answer, --json), which
  // plugin logging (console, @elizaos/core's logger) must not mix into either; and neither floods stderr.
  guardConsole(config.name, undefined, undefined, mode === "worker");
  // a subprocess dies with the host; a Worker reports its heap (a subprocess is measured from outside)
  if (mode === "stdio" && config.parentPid !== undefined) await dieWithParent(config.parentPid, REMOTE_PARENT_CHECK_MS);
  const memory =
    mode === "worker" ? startMemoryReports((m) => channel.send(m), config.maxMemoryMb, config.memoryCheckMs) : null;
  setLaunchContext({
    channel,
    initConfig: config.settings,
    rpcTimeoutMs: config.rpcTimeoutMs,
    ...(config.agent ? { agent: config.agent } : {}),
    ...(config.logLevel ? { logLevel: config.logLevel } : {}),
    onShutdown: () => (memory?.stop(), exit(0)),
    ...(memory ? { beforeCall: () => memory.beforeCall(), afterCall: () => memory.afterCall() } : {}),
    setProblemSink: (next) => (sink = next),
    bootstrapped: false,
  });
  let module: Record<string, unknown>;
  try {
    await registerWorkerRuntimeResolver();
    module = (await import(config.entry)) as Record<string, unknown>;
  } catch (error) {
    return failInit(error);
  }
  if (wasBootstrapped()) return;
  const plugin = module.default ?? module.plugin;
  if (!isPluginLike(plugin)) {
    return failInit(
      new Error(`entry ${config.entry} neither called bootstrap(plugin) nor exports a plugin object as default`),
    );
  }
  try {
    await bootstrap(plugin);
  } catch {
    // bootstrap already sent init-failed with the error
    channel.close();
    exit(1);
  }
}
