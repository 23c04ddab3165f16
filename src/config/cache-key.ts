import { BUILD_ID } from "../core/build-id.ts";
import { ENV_OVERRIDES } from "./env-overrides.ts";
import type { Config } from "./schema.ts";

/** The file in the workspace's cache/ holding the validated config of the last start (cache.ts). */
export const CONFIG_CACHE_FILE = "config.json";

export interface CacheEntry {
  key: string;
  config: Config;
}

/** What the validated config depends on: the build, the file (path and text) and the override variables' values. */
export function cacheKey(path: string, source: string | null, env: Record<string, string | undefined>): string {
  const overrides = Object.keys(ENV_OVERRIDES).map((name) => env[name] ?? null);
  const text = source === null ? "missing" : `${source.length}:${Bun.hash(source).toString(36)}`;
  return JSON.stringify([BUILD_ID, path, text, overrides]);
}

/** The config of a cache file's text when its key is `key`; null for another key or a malformed entry. */
export function configOfEntry(text: string, key: string): Config | null {
  const entry = JSON.parse(text) as CacheEntry;
  return entry.key === key && typeof entry.config === "object" && entry.config !== null ? entry.config : null;
}
