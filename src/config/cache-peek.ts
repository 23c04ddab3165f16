import { BUILD_ID } from "../core/build-id.ts";
import { errorMessage } from "../core/errors.ts";
import { createLogger } from "../core/logger.ts";
import { cacheKey, CONFIG_CACHE_FILE, configOfEntry } from "./cache-key.ts";
import type { LoadedConfig } from "./loader.ts";

const log = createLogger("config");

/**
 * A file's text read without node:fs (~1 ms to load). Not mapped: a file truncated by another process while mapped
 * would kill this one with SIGBUS. Null when the file is missing or empty.
 */
async function readText(path: string): Promise<string | null> {
  const file = Bun.file(path);
  if (file.size === 0) return null;
  return await file.text();
}

/**
 * The validated config cached for config.toml at `path` (cache.ts), read without node:fs: a start path that needs
 * nothing else of the file system (a channel process before it connects) spares loading it. `cacheDir` is a POSIX
 * path. Null when there is no entry for the file's current text and overrides, when config.toml is missing or
 * empty, or when anything cannot be read: the caller then loads the config with loadConfigCached, which validates it and reports
 * what is wrong.
 */
export async function peekConfigCached(
  path: string,
  cacheDir: string,
  env: Record<string, string | undefined> = process.env,
): Promise<LoadedConfig | null> {
  if (BUILD_ID === undefined) return null;
  try {
    const [entry, source] = await Promise.all([readText(`${cacheDir}/${CONFIG_CACHE_FILE}`), readText(path)]);
    // a missing or empty config.toml is left to loadConfigCached, which tells the two apart
    if (entry === null || source === null) return null;
    const config = configOfEntry(entry, cacheKey(path, source, env));
    return config ? { config, path } : null;
  } catch (error) {
    // not a verdict on the config: loadConfigCached reads it again and reports any error
    log.debug(`config cache not read without node:fs: ${errorMessage(error)}`);
    return null;
  }
}
