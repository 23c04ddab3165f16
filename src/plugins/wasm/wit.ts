import { PrxError } from "../../core/errors.ts";
import hostWit from "./wit/host.wit" with { type: "text" };
import pluginWit from "./wit/plugin.wit" with { type: "text" };

/** The one version of the prx WIT packages this host implements. */
export const PRX_WIT_VERSION = "0.1.0";
export const HOST_PACKAGE = "prx:host";
export const PLUGIN_PACKAGE = "prx:plugin";
export const HOST_INTERFACES = ["log", "config", "kv", "http-outbound", "memory", "events", "websocket"] as const;
export type HostInterface = (typeof HOST_INTERFACES)[number];

export const HOST_WIT_SOURCE: string = hostWit;
export const PLUGIN_WIT_SOURCE: string = pluginWit;

/**
 * Both packages as one WIT document (plugin package at top level, host package nested), which is what
 * `componentEmbed({ witSource })` accepts. `extra` may append more nested packages (e.g. test worlds).
 */
export function combinedWitSource(extra = ""): string {
  const nestedHost = HOST_WIT_SOURCE.replace(
    `package ${HOST_PACKAGE}@${PRX_WIT_VERSION};`,
    `package ${HOST_PACKAGE}@${PRX_WIT_VERSION} {`,
  );
  return `${PLUGIN_WIT_SOURCE}\n${nestedHost}\n}\n${extra}`;
}

/** Interface names a component imports or exports, as `ns:pkg/iface[@version]`. */
export interface ComponentInterfaces {
  imports: string[];
  exports: string[];
}

const NAME = /^([a-z0-9-]+:[a-z0-9-]+)\/([a-z0-9-]+)(?:@([0-9A-Za-z.+-]+))?$/;

/** Names of `import`/`export` items (interfaces and functions) of the root world printed by `componentWit`. */
export function interfacesFromWit(wit: string): ComponentInterfaces {
  const imports: string[] = [];
  const exports: string[] = [];
  for (const raw of wit.split("\n")) {
    const m = /^\s*(import|export)\s+([A-Za-z0-9:/@._-]+)\s*[;:]/.exec(raw);
    if (!m) continue;
    (m[1] === "import" ? imports : exports).push(m[2]!);
  }
  return { imports, exports };
}

/**
 * Reject names of the prx packages at an unsupported version, prx:host interfaces this host does not have, and
 * imports of packages other than prx:host and wasi:*. Unversioned names are accepted. WASI versions are linked
 * by name (preview2-shim implements 0.2.x).
 */
export function checkInterfaceVersions(plugin: string, ifaces: ComponentInterfaces): void {
  for (const [direction, list] of [
    ["imports", ifaces.imports],
    ["exports", ifaces.exports],
  ] as const) {
    for (const name of list) {
      const m = NAME.exec(name);
      if (!m) continue;
      const [, pkg, iface, version] = m;
      if (direction === "imports" && pkg !== HOST_PACKAGE && !pkg!.startsWith("wasi:")) {
        throw new PrxError("PLUGIN_LOAD", `plugin ${plugin} imports ${name}, which this host does not provide`, {
          hint: `prx links ${HOST_PACKAGE}@${PRX_WIT_VERSION} (${HOST_INTERFACES.join(", ")}) and WASI preview 2 only`,
        });
      }
      if (pkg !== HOST_PACKAGE && pkg !== PLUGIN_PACKAGE) continue;
      if (version !== undefined && version !== PRX_WIT_VERSION) {
        throw new PrxError(
          "PLUGIN_LOAD",
          `plugin ${plugin} ${direction} ${name}, but this host supports ${pkg}/${iface}@${PRX_WIT_VERSION} only`,
          { hint: `rebuild the plugin against ${pkg}@${PRX_WIT_VERSION} (the WIT is in src/plugins/wasm/wit/)` },
        );
      }
      if (pkg === HOST_PACKAGE && !(HOST_INTERFACES as readonly string[]).includes(iface!)) {
        throw new PrxError(
          "PLUGIN_LOAD",
          `plugin ${plugin} ${direction} ${name}, which ${HOST_PACKAGE}@${PRX_WIT_VERSION} does not define`,
          {
            hint: `available interfaces: ${HOST_INTERFACES.join(", ")}`,
          },
        );
      }
    }
  }
}

/** `prx:host/kv@0.1.0` -> `kv`, or null when the name is not a prx:host interface. */
export function hostInterfaceOf(name: string): HostInterface | null {
  const m = NAME.exec(name);
  if (!m || m[1] !== HOST_PACKAGE) return null;
  return (HOST_INTERFACES as readonly string[]).includes(m[2]!) ? (m[2] as HostInterface) : null;
}
