import { BUILD_ID } from "../core/build-id.ts";
import { errorMessage } from "../core/errors.ts";
import { createLogger } from "../core/logger.ts";
import { cacheKey, CONFIG_CACHE_FILE, configOfEntry } from "./cache-key.ts";
import type { LoadedConfig } from "./loader.ts";

const log = createLogger("config");
const decoder = new TextDecoder();

/**
 * A file's text read synchronously without node:fs (~1 ms to load; Bun.file's asynchronous read costs ~0.5 ms on its
 * first use): mapped and copied out at once. Null when the file is missing or empty (Bun cannot map an empty file).
 */
function readMapped(path: string): string | null {
  if (Bun.file(path).size === 0) return null;
  return decoder.decode(Bun.mmap(path, { shared: false }));
}

/**
 * The validated config cached for config.toml at `path` (cache.ts), read without node:fs: a start path that needs
 * nothing else of the file system (a channel process before it connects) spares loading it. `cacheDir` is a POSIX
 * path. Null when there is no entry for the file's current text and overrides, when config.toml is missing or
 * empty, or when anything cannot be read: the caller then loads the config with loadConfigCached, which validates it and reports
 * what is wrong.
 */
export function peekConfigCached(path: string, cacheDir: string, env: Record<string, string | undefined> = process.env): LoadedConfig | null {
  if (BUILD_ID === undefined) return null;
  try {
    const entry = readMapped(`${cacheDir}/${CONFIG_CACHE_FILE}`);
    if (entry === null) return null;
    // a missing or empty config.toml is left to loadConfigCached, which tells the two apart
    const source = readMapped(path);
    if (source === null) return null;
    const config = configOfEntry(entry, cacheKey(path, source, env));
    return config ? { config, path } : null;
  } catch (error) {
    // not a verdict on the config: loadConfigCached reads it again and reports any error
    log.debug(`config cache not read without node:fs: ${errorMessage(error)}`);
    return null;
  }
}
