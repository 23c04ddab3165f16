import { HOST_INTERFACES, PRX_WIT_VERSION, type HostInterface } from "../wit.ts";
import { configImports } from "./config.ts";
import type { HostContext } from "./context.ts";
import { eventsImports } from "./events.ts";
import { httpImports } from "./http-outbound.ts";
import { kvImports } from "./kv.ts";
import { logImports } from "./log.ts";
import { memoryImports } from "./memory.ts";
import { websocketImports } from "./websocket.ts";

/** Host functions that return promises: jco marks them as JSPI-suspending imports (part of the transpile key). */
export const ASYNC_HOST_FUNCTIONS: Readonly<Record<HostInterface, readonly string[]>> = {
  log: [],
  config: [],
  // async so that a kv served by the main thread (PostgreSQL) can suspend the guest; the local SQLite kv answers at
  // once, and a JSPI import returning a plain value does not suspend
  kv: ["get", "set", "delete", "list-keys"],
  "http-outbound": ["request"],
  memory: ["store", "recall"],
  events: ["subscribe", "unsubscribe"],
  websocket: ["connect", "send", "receive", "close"],
};

/** `prx:host/http-outbound@0.1.0#request` and the unversioned spelling, for jco's asyncImports. */
export function asyncImportNames(): string[] {
  const names: string[] = [];
  for (const iface of HOST_INTERFACES) {
    for (const fn of ASYNC_HOST_FUNCTIONS[iface]) {
      names.push(`prx:host/${iface}@${PRX_WIT_VERSION}#${fn}`, `prx:host/${iface}#${fn}`);
    }
  }
  return names;
}

/** The prx:host interfaces keyed by their JS-mapped function names. */
export function hostInterfaces(ctx: HostContext): Record<HostInterface, Record<string, (...args: never[]) => unknown>> {
  return {
    log: logImports(ctx),
    config: configImports(ctx),
    kv: kvImports(ctx),
    "http-outbound": httpImports(ctx),
    memory: memoryImports(ctx),
    events: eventsImports(ctx),
    websocket: websocketImports(ctx),
  };
}

/**
 * The whole host ABI for a component instance, whatever its world: every prx:host interface with and without
 * the version suffix, plus WASI preview 2 (deny by default) under every name the component imports.
 */
export async function componentImports(ctx: HostContext, requested: string[]): Promise<Record<string, unknown>> {
  // preview2-shim starts its own I/O worker when imported: only load it for components that import WASI
  const needsWasi = requested.some((name) => name.startsWith("wasi:"));
  const out: Record<string, unknown> = needsWasi ? (await import("./wasi.ts")).wasiImportsFor(ctx, requested) : {};
  const host = hostInterfaces(ctx);
  for (const iface of HOST_INTERFACES) {
    out[`prx:host/${iface}`] = host[iface];
    out[`prx:host/${iface}@${PRX_WIT_VERSION}`] = host[iface];
  }
  return out;
}
