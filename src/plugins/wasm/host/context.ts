import type { AdmittedPlugin, CapabilityRef } from "../../types.ts";
import type { RpcMethod, SandboxInit } from "../protocol.ts";
import { HostError } from "./errors.ts";
import type { WebSocketTable } from "./socket-table.ts";
import type { GuestKv } from "./types.ts";

export type PluginInfo = SandboxInit["plugin"];

/** The part of an admitted plugin its host functions see (sent to the sandbox Worker, or used in-thread). */
export function pluginInfo(plugin: AdmittedPlugin, maxMemoryMb = plugin.resources.maxMemoryMb): PluginInfo {
  return {
    name: plugin.name,
    kind: plugin.kind,
    entryPath: plugin.entryPath,
    capabilities: plugin.capabilities,
    granted: [...plugin.granted],
    config: plugin.config,
    httpAllowlist: plugin.httpAllowlist,
    maxMemoryMb,
    maxHttpRequestsPerCall: plugin.resources.maxHttpRequestsPerCall,
    maxKvStorageMb: plugin.resources.maxKvStorageMb,
    maxFuel: plugin.resources.maxFuel,
  };
}

/** Mutable state of the call in flight on one capability instance (calls to an instance are queued). */
export interface CallState {
  httpRequests: number;
}

/** What the host functions of one capability instance can reach, inside the sandbox Worker. */
export interface HostContext {
  plugin: PluginInfo;
  granted: ReadonlySet<string>;
  capIndex: number;
  capability: CapabilityRef;
  /** True when the instance exports on-event (events.subscribe is allowed). */
  canSubscribe: boolean;
  call: CallState;
  kv: GuestKv;
  sockets: WebSocketTable;
  log(level: "trace" | "debug" | "info" | "warn" | "error", message: string): void;
  publish(topic: string, payload: string): void;
  rpc(method: RpcMethod, args: unknown[]): Promise<unknown>;
}

/** Permissions are enforced when the guest calls an import, never at load. */
export function requirePermission(ctx: HostContext, ...anyOf: string[]): void {
  if (anyOf.some((p) => ctx.granted.has(p))) return;
  const name = anyOf[0]!;
  throw new HostError(
    `permission denied: plugin ${ctx.plugin.name} lacks the "${name}" permission; ` +
      `declare it in plugin.toml [permissions] and grant it with [plugins.${ctx.plugin.name}] grant = ["${name}"] in config.toml`,
  );
}
