import { PrxError } from "../../core/errors.ts";
import type { CapabilityRef } from "../types.ts";
import { exportsInterface, exportsInterfaceName, findExportsInterface } from "./contract-names.ts";
import { REQUIRED_EXPORTS, camelCase } from "./guest/types.ts";
import type { TranspileMeta } from "./transpile.ts";

/** How to rebuild a component in the contract's shape, for load errors. */
export function rebuildHint(cap: CapabilityRef): string {
  return (
    `rebuild it against the prx WIT folder (src/plugins/wasm/wit/, world ${cap.type}), e.g. ` +
    `\`componentize-js plugin.js --wit wit --world-name ${cap.type} -o plugin.wasm\`; in JS the functions are ` +
    `members of \`export const ${camelCase(exportsInterface(cap.type))} = { ... }\``
  );
}

/**
 * A capability is served from its export interface (`prx:plugin/tool-exports@0.1.0`), which must hold every function
 * the capability needs. A component exporting those functions at world level (an older reading of the contract)
 * is refused with an error that says so.
 */
export function checkComponentExports(plugin: string, cap: CapabilityRef, meta: TranspileMeta): void {
  const needed = REQUIRED_EXPORTS[cap.type];
  const expected = exportsInterfaceName(cap.type);
  const where = `plugin ${plugin}: capability ${cap.type} ${cap.name}`;
  const iface = findExportsInterface(cap.type, meta.interfaces.exports);
  if (iface === null) {
    const worldLevel = needed.filter((fn) => meta.interfaces.exports.includes(fn));
    const found =
      worldLevel.length > 0
        ? `; it exports ${worldLevel.join(", ")} as world-level functions instead`
        : meta.interfaces.exports.length > 0
          ? `; it exports ${meta.interfaces.exports.join(", ")}`
          : "";
    throw new PrxError(
      "PLUGIN_LOAD",
      `${where} needs the export ${expected} (${needed.join(", ")}), which the component does not have${found}`,
      { hint: rebuildHint(cap) },
    );
  }
  const present = meta.interfaceFunctions[iface] ?? [];
  const missing = needed.filter((fn) => !present.includes(camelCase(fn)));
  if (missing.length > 0) {
    throw new PrxError(
      "PLUGIN_LOAD",
      `${where}: its export ${iface} lacks ${missing.join(", ")} (needs ${needed.join(", ")})`,
      { hint: rebuildHint(cap) },
    );
  }
}
