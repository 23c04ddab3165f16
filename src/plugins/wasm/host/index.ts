import type { KvPlacement } from "../protocol.ts";
import { HOST_INTERFACES, PRX_WIT_VERSION, type HostInterface } from "../wit.ts";
import { configImports } from "./config.ts";
import type { HostContext } from "./context.ts";
import { eventsImports } from "./events.ts";
import { httpImports } from "./http-outbound.ts";
import { kvImports } from "./kv.ts";
import { logImports } from "./log.ts";
import { memoryImports } from "./memory.ts";
import { websocketImports } from "./websocket.ts";

/**
 * Host functions that return promises: jco marks them as JSPI-suspending imports (part of the transpile key).
 * jco lowers such an import as an async function with its task bookkeeping, so each call suspends the guest's stack
 * and resumes it from the microtask queue even when the host answers at once: only what may really wait is async.
 */
export const ASYNC_HOST_FUNCTIONS: Readonly<Record<HostInterface, readonly string[]>> = {
  log: [],
  config: [],
  // a kv served by the main thread (PostgreSQL) suspends the guest; the local SQLite kv answers synchronously, so
  // its imports are lowered sync (asyncImportNames)
  kv: ["get", "set", "delete", "list-keys"],
  "http-outbound": ["request"],
  memory: ["store", "recall"],
  events: ["subscribe", "unsubscribe"],
  websocket: ["connect", "send", "receive", "close"],
};

/**
 * `prx:host/http-outbound@0.1.0#request` and the unversioned spelling, for jco's asyncImports; the kv functions only
 * when the kv is served by the main thread (`kv` "host").
 */
export function asyncImportNames(kv: KvPlacement): string[] {
  const names: string[] = [];
  for (const iface of HOST_INTERFACES) {
    if (iface === "kv" && kv === "local") continue;
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
