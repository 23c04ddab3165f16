import type { Config, PluginGrant } from "../config/schema.ts";
import { secretFromEnv } from "../config/secrets.ts";
import type { JsonValue } from "../core/json/index.ts";
import { PrxError, toPrxError } from "../core/errors.ts";
import type { DiscoveredPlugin } from "./discovered.ts";
import type { PluginRecord } from "./generation.ts";
import { decidePermissions, missingGrantsError } from "./permissions.ts";

/** A generation's record of a discovered plugin, before admission. */
export function recordFrom(found: DiscoveredPlugin): PluginRecord {
  const manifest = found.ok ? found.manifest : (found.manifest ?? null);
  return {
    name: found.name,
    dirName: found.dirName,
    dir: found.dir,
    version: manifest?.plugin.version ?? null,
    kind: found.ok ? found.kind : null,
    description: manifest?.plugin.description ?? "",
    capabilities: manifest?.capabilities ?? [],
    state: found.ok ? "active" : "error",
    error: found.ok ? null : found.error,
    warnings: [...found.warnings],
    permissions: { required: manifest?.permissions.required ?? [], optional: manifest?.permissions.optional ?? [], granted: [], missing: [] },
    manifest,
    admitted: null,
    fingerprint: null,
    outcome: "built",
    reloadError: null,
  };
}

export function fail(record: PluginRecord, error: unknown, code: "PLUGIN_LOAD" | "PLUGIN_ADMISSION" = "PLUGIN_LOAD"): void {
  record.state = "error";
  record.error = toPrxError(error, code, `plugin "${record.name}"`);
}

/** The plugin names records before this one took (a Set, or the positions of a generation whose records sit where they did). */
export interface SeenNames {
  has(name: string): boolean;
  add(name: string): unknown;
}

/** Admission against config: enabled, duplicate names, permissions. Sets record.admitted when it may load. */
export function admit(record: PluginRecord, found: DiscoveredPlugin, config: Config, seen: SeenNames): void {
  if (seen.has(record.name)) {
    fail(record, new PrxError("PLUGIN_ADMISSION", `plugin name "${record.name}" in ${record.dir} is already used by another directory`), "PLUGIN_ADMISSION");
    return;
  }
  seen.add(record.name);
  const grant = config.plugins[record.name];
  if (grant && !grant.enabled) {
    record.state = "disabled";
    record.error = null;
    return;
  }
  if (!found.ok) return;
  const manifest = found.manifest;
  record.permissions = decidePermissions(manifest, grant);
  if (record.permissions.missing.length > 0) {
    fail(record, missingGrantsError(record.name, record.permissions.missing), "PLUGIN_ADMISSION");
    return;
  }
  const settings = grantedSettings(record.name, grant);
  if (settings instanceof PrxError) {
    fail(record, settings, "PLUGIN_ADMISSION");
    return;
  }
  const r = manifest.resources;
  record.admitted = {
    name: record.name,
    version: manifest.plugin.version,
    kind: found.kind,
    dir: found.dir,
    entryPath: found.entryPath,
    capabilities: manifest.capabilities.map((c) => ({ type: c.type, name: c.name })),
    resources: {
      maxMemoryMb: r.max_memory_mb,
      maxExecutionTimeMs: r.max_execution_time_ms,
      maxHttpRequestsPerCall: r.max_http_requests_per_call,
      maxKvStorageMb: r.max_kv_storage_mb,
      maxFuel: r.max_fuel ?? null,
      hostCalls: {
        perSecond: r.max_host_calls_per_second,
        burst: r.host_call_burst,
        inFlight: r.max_host_calls_in_flight,
      },
    },
    granted: new Set(record.permissions.granted),
    config: { ...manifest.config, ...(grant?.config ?? {}) },
    settings,
    httpAllowlist: manifest.permissions.http_allowlist,
    ...(manifest.remote && found.kind === "remote" ? { remote: manifest.remote } : {}),
  };
}

/**
 * `[plugins.<name>.settings]` with `[plugins.<name>.secrets]` read from the environment variables they name (a secret
 * wins over a setting of the same name), as a character's settings and secrets reach getSetting in elizaOS. A secret
 * whose variable is unset or empty keeps the plugin out, naming the variable.
 */
function grantedSettings(name: string, grant: PluginGrant | undefined, env: Record<string, string | undefined> = process.env): Record<string, JsonValue> | PrxError {
  const settings: Record<string, JsonValue> = { ...(grant?.settings as Record<string, JsonValue> | undefined) };
  for (const [key, variable] of Object.entries(grant?.secrets ?? {})) {
    const value = secretFromEnv(variable, env);
    if (value === undefined) {
      return new PrxError("PLUGIN_ADMISSION", `plugin "${name}": secret ${key} reads the environment variable ${variable}, which is not set`, {
        hint: `set ${variable} in the environment prx runs in, or remove ${key} from [plugins.${name}.secrets]`,
      });
    }
    settings[key] = value;
  }
  return settings;
}
