import { PrxError } from "../core/errors.ts";
import type { PluginGrant } from "../config/schema.ts";
import type { PluginManifest } from "./manifest.ts";
import { AUTO_GRANTED_PERMISSIONS } from "./types.ts";

/**
 * Permission decision for one plugin. `log`, `config` and `kv` are granted without asking; every other
 * permission is sensitive: a required one must be listed in `[plugins.<name>] grant`, an optional one is
 * granted only when listed. Grants for permissions the manifest does not declare are ignored.
 */
export interface PermissionDecision {
  required: string[];
  optional: string[];
  /** Effective set, sorted: auto-granted plus granted required/optional. */
  granted: string[];
  /** Required sensitive permissions not granted in config (non-empty: the plugin must not get adapters). */
  missing: string[];
}

const AUTO = new Set<string>(AUTO_GRANTED_PERMISSIONS);

export function isSensitivePermission(permission: string): boolean {
  return !AUTO.has(permission);
}

export function decidePermissions(manifest: PluginManifest, grant: PluginGrant | undefined): PermissionDecision {
  const required = [...new Set(manifest.permissions.required)];
  const optional = [...new Set(manifest.permissions.optional)].filter((p) => !required.includes(p));
  const granted = new Set<string>(AUTO);
  const configured = new Set(grant?.grant ?? []);
  const missing: string[] = [];
  for (const permission of required) {
    if (!isSensitivePermission(permission) || configured.has(permission)) granted.add(permission);
    else missing.push(permission);
  }
  for (const permission of optional) {
    if (!isSensitivePermission(permission) || configured.has(permission)) granted.add(permission);
  }
  return { required, optional, granted: [...granted].sort(), missing };
}

export function missingGrantsError(name: string, missing: string[]): PrxError {
  const list = missing.map((p) => `"${p}"`).join(", ");
  return new PrxError("PLUGIN_PERMISSION", `plugin "${name}" requires ungranted permission(s): ${list}`, {
    hint: `grant them in config.toml: [plugins.${name}] grant = [${list}], then reload`,
    details: { missing },
  });
}
