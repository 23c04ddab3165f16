import { PROVIDER_PRESETS } from "./provider-presets.ts";
import type { Config } from "./schema.ts";

/** One problem found by comparing keys with each other: the key path it is reported at, and what to do. */
export interface CrossIssue {
  path: (string | number)[];
  message: string;
}

const OFFLINE = "offline";
const CUSTOM_PREFIX = "custom:";
/** Names a plugin provides; whether the plugin exists is known only once plugins load, so they pass here. */
const PLUGIN_PREFIXES = ["wasm:", "remote:"];
const HINT_PREFIX = "hint:";

/** Why `name` cannot be resolved as a provider, or null when it can (the provider resolver's own rules). */
function unresolvable(config: Config, name: string): string | null {
  if (name === OFFLINE || PLUGIN_PREFIXES.some((prefix) => name.startsWith(prefix))) return null;
  if (name.startsWith(CUSTOM_PREFIX)) {
    const url = name.slice(CUSTOM_PREFIX.length);
    const protocol = URL.canParse(url) ? new URL(url).protocol : "";
    return protocol === "http:" || protocol === "https:" ? null : `"${url}" is not an http(s) URL (custom:<base url>)`;
  }
  const settings = Object.hasOwn(config.providers, name) ? config.providers[name] : undefined;
  const preset = Object.hasOwn(PROVIDER_PRESETS, name);
  if (!settings) {
    if (preset) return null;
    const known = [OFFLINE, ...Object.keys(config.providers)].join(", ");
    return `no [providers.${name}] table and no built-in provider of that name (defined: ${known}; built in: ${Object.keys(PROVIDER_PRESETS).join(", ")})`;
  }
  if (settings.kind !== "offline" && settings.base_url === undefined && !preset) {
    return `[providers.${name}] has no base_url (and "${name}" is not a built-in provider)`;
  }
  return null;
}

/**
 * What the schema cannot see key by key: settings that are each valid but together make every turn fail. Run on
 * every validation (the loader's, so `prx config validate`, `prx doctor`, a start and a reload all refuse them).
 */
export function crossCheck(config: Config): CrossIssue[] {
  const issues: CrossIssue[] = [];
  if (config.memory.backend === "postgres" && config.storage.backend !== "postgres") {
    issues.push({
      path: ["memory", "backend"],
      message: '"postgres" needs [storage] backend = "postgres" (memory lives in the workspace\'s database); use "sqlite" or set [storage] backend',
    });
  }
  const provider = unresolvable(config, config.default_provider);
  if (provider) issues.push({ path: ["default_provider"], message: `"${config.default_provider}": ${provider}` });
  config.model_routes.forEach((route, index) => {
    const why = unresolvable(config, route.provider);
    if (why) issues.push({ path: ["model_routes", index, "provider"], message: `"${route.provider}": ${why}` });
  });
  config.reliability.fallback_providers.forEach((name, index) => {
    const why = unresolvable(config, name);
    if (why) issues.push({ path: ["reliability", "fallback_providers", index], message: `"${name}": ${why}` });
  });
  if (config.default_model.startsWith(HINT_PREFIX)) {
    const hint = config.default_model.slice(HINT_PREFIX.length);
    if (!config.model_routes.some((route) => route.hint === hint)) {
      issues.push({ path: ["default_model"], message: `"${config.default_model}": no [[model_routes]] entry with hint "${hint}"` });
    }
  }
  return issues;
}
