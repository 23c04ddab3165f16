import { PrxError } from "../../../core/errors.ts";
import { CapabilityTypes, type CapabilityType } from "../../types.ts";
import { exportsInterface } from "../../wasm/contract-names.ts";
import { camelCase, REQUIRED_EXPORTS } from "../../wasm/guest/types.ts";
import { HOST_PACKAGE, PLUGIN_PACKAGE, PRX_WIT_VERSION } from "../../wasm/wit.ts";
import { witPackages } from "../wit/generate.ts";
import { worldImports } from "../wit/parse.ts";

/**
 * The world a plugin is built for: the PRX world of its capability type, or, for a plugin declaring several types,
 * a world including each of them (written beside the PRX WIT when the engine reads it).
 */
export interface PluginWorld {
  name: string;
  /** A WIT file of the prx:plugin package defining `name`, or null for a PRX world. */
  extraWit: string | null;
  /** The prx:host interfaces it imports (`kv`, `http-outbound`, ...). */
  hostImports: string[];
  /** What the plugin module must export: `toolExports` with `getSpec` and `execute`, ... */
  exports: { name: string; functions: string[] }[];
}

export function worldFor(types: readonly CapabilityType[]): PluginWorld {
  const distinct = CapabilityTypes.filter((t) => types.includes(t));
  if (distinct.length === 0) {
    throw new PrxError("PLUGIN_BUILD", "plugin.toml declares no capability", {
      hint: 'add a [[capabilities]] table with type = "tool" (or middleware, hook, cron, provider, storage)',
    });
  }
  const { plugin } = witPackages();
  const seen = new Set<string>();
  const hostImports = distinct
    .flatMap((t) => worldImports(plugin, t))
    .map((name) => /^[^/]+\/([^@]+)/.exec(name)?.[1] ?? name)
    .filter((name) => !seen.has(name) && seen.add(name));
  const name = distinct.length === 1 ? distinct[0]! : `kit-${distinct.join("-")}`;
  return {
    name,
    extraWit:
      distinct.length === 1
        ? null
        : `package ${PLUGIN_PACKAGE}@${PRX_WIT_VERSION};\n\nworld ${name} {\n${distinct.map((t) => `  include ${t};`).join("\n")}\n}\n`,
    hostImports,
    exports: distinct.map((t) => ({ name: camelCase(exportsInterface(t)), functions: REQUIRED_EXPORTS[t].map(camelCase) })),
  };
}

export interface HostImport {
  specifier: string;
  /** The file that imports it (a path, or `@prx/kit/<module>` for the kit's own). */
  importer: string;
}

const HOST_IMPORT = /^prx:host\/([a-z0-9-]+)(?:@(.+))?$/;

/** Every `prx:host/...` import must be an interface of the world, at the contract's version. */
export function checkHostImports(world: PluginWorld, imports: readonly HostImport[]): void {
  for (const { specifier, importer } of imports) {
    const m = HOST_IMPORT.exec(specifier);
    const where = `${importer} imports ${specifier}`;
    if (!m) throw new PrxError("PLUGIN_BUILD", `${where}, which is not a ${HOST_PACKAGE} interface`, { hint: hostHint(world) });
    const [, iface, version] = m;
    if (version !== PRX_WIT_VERSION) {
      throw new PrxError("PLUGIN_BUILD", `${where}: the contract is ${HOST_PACKAGE}/${iface}@${PRX_WIT_VERSION}`, {
        hint: `import "${HOST_PACKAGE}/${iface}@${PRX_WIT_VERSION}"`,
      });
    }
    if (!world.hostImports.includes(iface!)) {
      throw new PrxError("PLUGIN_BUILD", `${where}, which the ${world.name} world does not import`, { hint: hostHint(world) });
    }
  }
}

function hostHint(world: PluginWorld): string {
  return (
    `a ${world.name} plugin may use ${world.hostImports.map((i) => `${HOST_PACKAGE}/${i}@${PRX_WIT_VERSION}`).join(", ")}` +
    " (http-outbound: tool, provider and storage; memory: tool)"
  );
}
