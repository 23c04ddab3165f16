import type { CapabilityType } from "../types.ts";

/**
 * Names of the prx WIT contract, free of imports so the sandbox Worker can use them (the WIT text itself is in
 * wit.ts, main thread only).
 */
export const PRX_WIT_VERSION = "0.1.0";
export const HOST_PACKAGE = "prx:host";
export const PLUGIN_PACKAGE = "prx:plugin";

/** The interface a capability's component exports: `tool` -> `tool-exports`. */
export function exportsInterface(type: CapabilityType): string {
  return `${type}-exports`;
}

/** `prx:plugin/tool-exports@0.1.0`, the name the host looks a capability's functions up under. */
export function exportsInterfaceName(type: CapabilityType): string {
  return `${PLUGIN_PACKAGE}/${exportsInterface(type)}@${PRX_WIT_VERSION}`;
}

/** Both spellings a component may export a capability's interface under: versioned first, then unversioned. */
export function exportsInterfaceNames(type: CapabilityType): readonly [string, string] {
  return [exportsInterfaceName(type), `${PLUGIN_PACKAGE}/${exportsInterface(type)}`];
}

/** The exported interface name a capability is served from, or null when the component has none. */
export function findExportsInterface(type: CapabilityType, exported: readonly string[]): string | null {
  return exportsInterfaceNames(type).find((name) => exported.includes(name)) ?? null;
}
