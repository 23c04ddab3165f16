import type { PluginInstance } from "../types.ts";
import type { RemotePluginHandle } from "./types.ts";

/** A loaded remote plugin in one generation: the generic instance plus the handle its adapters are built from. */
export interface RemotePluginInstance extends PluginInstance {
  readonly handle: RemotePluginHandle;
}

export function isRemoteInstance(instance: PluginInstance): instance is RemotePluginInstance {
  return typeof (instance as Partial<RemotePluginInstance>).handle?.descriptor === "function";
}
