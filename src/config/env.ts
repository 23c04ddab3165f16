import { PrxError } from "../core/errors.ts";
import { ENV_OVERRIDES } from "./env-overrides.ts";
import { ConfigSchema, type Config } from "./schema.ts";

/** Keys whose values stay strings even when they look like numbers. */
const STRING_KEYS = new Set(["default_model", "default_provider", "host", "backend", "schema", "prefix"]);

function coerce(value: string): unknown {
  if (/^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (value === "true" || value === "false") return value === "true";
  return value;
}

export function applyEnvOverrides(config: Config, env: Record<string, string | undefined>): Config {
  let changed = false;
  const next = structuredClone(config) as Record<string, any>;
  for (const [name, path] of Object.entries(ENV_OVERRIDES)) {
    const value = env[name];
    if (value === undefined || value === "") continue;
    const keys = path.split(".");
    let target = next;
    for (const key of keys.slice(0, -1)) target = target[key];
    target[keys.at(-1)!] = STRING_KEYS.has(keys.at(-1)!) ? value : coerce(value);
    changed = true;
  }
  if (!changed) return config;
  const result = ConfigSchema.safeParse(next);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const env = Object.entries(ENV_OVERRIDES).find(([, p]) => p === issue.path.join("."))?.[0] ?? "environment";
    throw new PrxError("CONFIG_INVALID", `${env}: ${issue.path.join(".")}: ${issue.message}`);
  }
  return result.data;
}
