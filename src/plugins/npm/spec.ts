import { PrxError } from "../../core/errors.ts";
import { PLUGIN_NAME_PATTERN } from "../manifest.ts";

/** `@scope/name@1.2.3` -> the package and the version asked for (null: the registry's latest). */
export interface NpmSpec {
  package: string;
  version: string | null;
}

const PACKAGE_PATTERN = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;

export function parseNpmSpec(spec: string): NpmSpec {
  const at = spec.lastIndexOf("@");
  const [pkg, version] = at > 0 ? [spec.slice(0, at), spec.slice(at + 1)] : [spec, null];
  if (!PACKAGE_PATTERN.test(pkg) || version === "") {
    throw new PrxError("BAD_REQUEST", `"${spec}" is not an npm package name with an optional @version`, {
      hint: "e.g. prx plugins add @elizaos/plugin-starter@1.7.2",
    });
  }
  return { package: pkg, version };
}

/** The plugin's name from its package: `@elizaos/plugin-mcp` -> `mcp` (checked like any plugin name). */
export function pluginNameOf(pkg: string, given?: string): string {
  const name = given ?? pkg.replace(/^@[^/]+\//, "").replace(/^(elizaos-)?plugin-/, "").toLowerCase();
  if (!PLUGIN_NAME_PATTERN.test(name)) {
    throw new PrxError("BAD_REQUEST", `"${name}" is not a valid plugin name (lowercase letters, digits, _ and -, at most 64)`, {
      hint: "name it with --name",
    });
  }
  return name;
}
