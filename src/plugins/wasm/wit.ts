import { PrxError } from "../../core/errors.ts";
import { HOST_PACKAGE, PLUGIN_PACKAGE, PRX_WIT_VERSION } from "./contract-names.ts";
import cronWit from "./wit/cron.wit" with { type: "text" };
import hookWit from "./wit/hook.wit" with { type: "text" };
import middlewareWit from "./wit/middleware.wit" with { type: "text" };
import providerWit from "./wit/provider.wit" with { type: "text" };
import storageWit from "./wit/storage.wit" with { type: "text" };
import toolWit from "./wit/tool.wit" with { type: "text" };
import worldsWit from "./wit/worlds.wit" with { type: "text" };
import configWit from "./wit/deps/prx-host/config.wit" with { type: "text" };
import eventsWit from "./wit/deps/prx-host/events.wit" with { type: "text" };
import httpWit from "./wit/deps/prx-host/http-outbound.wit" with { type: "text" };
import kvWit from "./wit/deps/prx-host/kv.wit" with { type: "text" };
import logWit from "./wit/deps/prx-host/log.wit" with { type: "text" };
import memoryWit from "./wit/deps/prx-host/memory.wit" with { type: "text" };
import websocketWit from "./wit/deps/prx-host/websocket.wit" with { type: "text" };

export { HOST_PACKAGE, PLUGIN_PACKAGE, PRX_WIT_VERSION };
export const HOST_INTERFACES = ["log", "config", "kv", "http-outbound", "memory", "events", "websocket"] as const;
export type HostInterface = (typeof HOST_INTERFACES)[number];

/**
 * The WIT folder as a plugin author gets it (`src/plugins/wasm/wit/`), path -> text: the prx:plugin package (one
 * file per capability interface plus worlds.wit) and the prx:host package under deps/. Embedded in the binary.
 */
export const WIT_FILES: Readonly<Record<string, string>> = {
  "worlds.wit": worldsWit,
  "tool.wit": toolWit,
  "middleware.wit": middlewareWit,
  "hook.wit": hookWit,
  "cron.wit": cronWit,
  "provider.wit": providerWit,
  "storage.wit": storageWit,
  "deps/prx-host/log.wit": logWit,
  "deps/prx-host/config.wit": configWit,
  "deps/prx-host/kv.wit": kvWit,
  "deps/prx-host/http-outbound.wit": httpWit,
  "deps/prx-host/memory.wit": memoryWit,
  "deps/prx-host/events.wit": eventsWit,
  "deps/prx-host/websocket.wit": websocketWit,
};

function withoutPackageLine(text: string): string {
  return text.replace(/^package [^;]+;\s*$/m, "");
}

/**
 * Both packages as one WIT document, which is what `componentEmbed({ witSource })` accepts: the plugin package at top
 * level, the host package nested (`package prx:host@0.1.0 { ... }`). `extra` may append more nested packages.
 */
export function combinedWitSource(extra = ""): string {
  const plugin: string[] = [];
  const host: string[] = [];
  for (const [path, text] of Object.entries(WIT_FILES)) (path.startsWith("deps/") ? host : plugin).push(withoutPackageLine(text));
  return [
    `package ${PLUGIN_PACKAGE}@${PRX_WIT_VERSION};`,
    ...plugin,
    `package ${HOST_PACKAGE}@${PRX_WIT_VERSION} {`,
    ...host,
    "}",
    extra,
  ].join("\n");
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
          { hint: `rebuild the plugin against ${pkg}@${PRX_WIT_VERSION} (the WIT folder is src/plugins/wasm/wit/)` },
        );
      }
      if (pkg === HOST_PACKAGE && !(HOST_INTERFACES as readonly string[]).includes(iface!)) {
        throw new PrxError(
          "PLUGIN_LOAD",
          `plugin ${plugin} ${direction} ${name}, which ${HOST_PACKAGE}@${PRX_WIT_VERSION} does not define`,
          { hint: `available interfaces: ${HOST_INTERFACES.join(", ")}` },
        );
      }
    }
  }
}
