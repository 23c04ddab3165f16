import { join } from "node:path";
import { BUILD_ID } from "../core/build-id.ts";
import { errorMessage } from "../core/errors.ts";
import { createLogger } from "../core/logger.ts";
import { cacheKey, CONFIG_CACHE_FILE, configOfEntry } from "./cache-key.ts";
import type { LoadedConfig } from "./loader.ts";

const log = createLogger("config");

/**
 * The validated config cached for config.toml at `path` (cache.ts), read with Bun.file only: a start path that needs
 * nothing else of the file system (a channel process before it connects) does not load node:fs (~1 ms of a cold
 * start). Null when there is no entry for the file's current text and overrides, or when anything cannot be read:
 * the caller then loads the config with loadConfigCached, which validates it and reports what is wrong.
 */
export async function peekConfigCached(
  path: string,
  cacheDir: string,
  env: Record<string, string | undefined> = process.env,
): Promise<LoadedConfig | null> {
  if (BUILD_ID === undefined) return null;
  try {
    const file = Bun.file(path);
    const source = (await file.exists()) ? await file.text() : null;
    const cache = Bun.file(join(cacheDir, CONFIG_CACHE_FILE));
    if (!(await cache.exists())) return null;
    const config = configOfEntry(await cache.text(), cacheKey(path, source, env));
    return config ? { config, path: source === null ? null : path } : null;
  } catch (error) {
    // not a verdict on the config: loadConfigCached reads it again and reports any error
    log.debug(`config cache not read without node:fs: ${errorMessage(error)}`);
    return null;
  }
}
