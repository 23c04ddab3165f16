import { readFileSync } from "node:fs";
import { PrxError } from "../../core/errors.ts";
import type { CapabilityRef } from "../types.ts";
import { REQUIRED_EXPORTS, snakeCase } from "./guest/types.ts";
import { exportsInterfaceName, findExportsInterface } from "./contract-names.ts";
import { meteringFor } from "./artifact-cache.ts";
import { instrumentModule } from "./instrument/module.ts";
import { type ComponentInterfaces, checkInterfaceVersions, interfacesFromWit } from "./wit.ts";

/** What `prx plugins validate <dir>` reports about a wasm file, without starting a sandbox. */
export interface WasmInspection {
  kind: "wasm-component" | "wasm-module";
  imports: string[];
  exports: string[];
  /**
   * Capability exports the binary lacks, e.g. "tool echo: prx:plugin/tool-exports@0.1.0 (...)" or, for a core module,
   * "tool echo: execute". Empty when every capability can load.
   */
  missingExports: string[];
  /** Problems that do not stop loading. */
  warnings: string[];
  /** How calls are bounded: max_fuel (enforced) and max_execution_time_ms (describeFuel). */
  fuel: string;
}

/** One line for `prx plugins validate` on how a plugin's calls are bounded. */
export function describeFuel(maxFuel: number | null): string {
  if (maxFuel === null) {
    return "no max_fuel: calls are bounded by max_execution_time_ms (guests are instrumented, so a timeout stops them)";
  }
  return (
    `max_fuel = ${maxFuel} is enforced: a call executing more than ${maxFuel} units ` +
    "(about one WebAssembly instruction each) fails with PLUGIN_FUEL"
  );
}

/**
 * Inspect a wasm file for `prx plugins validate`: binary kind, imports/exports, prx WIT version check (throws
 * PrxError PLUGIN_LOAD like the loader), exports each capability needs. Uses jco's wasm-tools for components.
 */
export async function inspectWasm(
  plugin: string,
  path: string,
  capabilities: CapabilityRef[],
  maxFuel: number | null = null,
): Promise<WasmInspection> {
  const bytes = readFileSync(path);
  const warnings: string[] = [];
  const fuel = describeFuel(maxFuel);
  if (bytes.length < 8 || bytes.readUInt32LE(0) !== 0x6d736100) {
    throw new PrxError("PLUGIN_LOAD", `plugin ${plugin}: ${path} is not a WebAssembly binary`);
  }
  if (bytes[4] === 0x0d) {
    const { componentWit } = await import("@bytecodealliance/jco-transpile/wasm-tools");
    let ifaces: ComponentInterfaces;
    try {
      ifaces = interfacesFromWit(await componentWit(bytes));
    } catch (error) {
      throw new PrxError(
        "PLUGIN_LOAD",
        `plugin ${plugin}: ${path} is not a valid component: ${(error as Error).message}`,
      );
    }
    checkInterfaceVersions(plugin, ifaces);
    const missingExports = capabilities
      .filter((c) => findExportsInterface(c.type, ifaces.exports) === null)
      .map((c) => `${c.type} ${c.name}: ${exportsInterfaceName(c.type)} (${REQUIRED_EXPORTS[c.type].join(", ")})`);
    return { kind: "wasm-component", imports: ifaces.imports, exports: ifaces.exports, missingExports, warnings, fuel };
  }
  let module: WebAssembly.Module;
  try {
    module = new WebAssembly.Module(bytes);
  } catch (error) {
    throw new PrxError("PLUGIN_LOAD", `plugin ${plugin}: ${path} does not compile: ${(error as Error).message}`);
  }
  const exports = WebAssembly.Module.exports(module).map((e) => e.name);
  const imports = [...new Set(WebAssembly.Module.imports(module).map((i) => `${i.module}.${i.name}`))];
  const missingExports = capabilities.flatMap((c) =>
    ["memory", "alloc", "dealloc", ...REQUIRED_EXPORTS[c.type].map(snakeCase)]
      .filter((fn) => !exports.includes(fn))
      .map((fn) => `${c.type} ${c.name}: ${fn}`),
  );
  const foreign = imports.filter((i) => !i.startsWith("prx_host."));
  if (foreign.length > 0) {
    throw new PrxError(
      "PLUGIN_LOAD",
      `plugin ${plugin}: core module imports ${foreign.join(", ")}; only prx_host.call is provided`,
      {
        hint: "see src/plugins/wasm/CORE-ABI.md",
      },
    );
  }
  // what the loader will do to it: an instruction the rewriter cannot decode fails here, naming it and its offset
  instrumentModule(bytes, `plugin ${plugin}`, meteringFor(maxFuel));
  return { kind: "wasm-module", imports, exports, missingExports, warnings, fuel };
}
