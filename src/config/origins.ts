import { parse as parseToml } from "smol-toml";
import { ENV_OVERRIDES } from "./env-overrides.ts";
import { readConfigSource } from "./source.ts";

/** Where a value of the effective config came from, when not from the defaults. */
export interface ConfigOrigin {
  /** Dotted key, e.g. `gateway.port`. */
  key: string;
  origin: "file" | "env";
  /** The environment variable, for `env`. */
  env?: string;
}

function leaves(value: unknown, path: string[], out: string[]): void {
  if (typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date)) {
    for (const [key, inner] of Object.entries(value)) leaves(inner, [...path, key], out);
  } else if (path.length > 0) out.push(path.join("."));
}

/**
 * Every value that is not a default, and where it came from: a key written in config.toml (a table or an array
 * counts by its own key's values), or an environment override (which wins over the file). A file that does not parse
 * has no origins: the caller reports it as invalid.
 */
export function configOrigins(path: string, env: Record<string, string | undefined>): ConfigOrigin[] {
  const source = readConfigSource(path);
  const keys: string[] = [];
  if (source !== null) leaves(parseToml(source), [], keys);
  const overridden = new Map<string, string>();
  for (const [name, key] of Object.entries(ENV_OVERRIDES)) {
    const value = env[name];
    if (value !== undefined && value !== "") overridden.set(key, name);
  }
  const origins: ConfigOrigin[] = keys.filter((key) => !overridden.has(key)).map((key) => ({ key, origin: "file" }));
  for (const [key, name] of overridden) origins.push({ key, origin: "env", env: name });
  return origins.sort((a, b) => a.key.localeCompare(b.key));
}
