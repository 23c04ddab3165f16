import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUILD_ID } from "../core/build-id.ts";
import { createLogger } from "../core/logger.ts";
import { cacheKey, CONFIG_CACHE_FILE, configOfEntry, type CacheEntry } from "./cache-key.ts";
import type { LoadedConfig } from "./loader.ts";
import type { Config } from "./schema.ts";
import { readConfigSource } from "./source.ts";

/**
 * The validated config of the last start, in the workspace's cache/. Building the config schema and validating a
 * config costs 10-15 ms of a cold start (zod builds each schema object in the interpreter); the result depends only on
 * the file's text, the override variables and the build, so it is reused while those stay the same. Any change to
 * one of them validates again, and a cache that cannot be read or written is only skipped. cache-peek.ts reads the
 * same entry without node:fs.
 */
export { CONFIG_CACHE_FILE } from "./cache-key.ts";

const log = createLogger("config");

function readEntry(file: string, key: string): Config | null {
  try {
    return configOfEntry(readFileSync(file, "utf8"), key);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") log.debug(`ignoring ${file}: ${(error as Error).message}`);
    return null;
  }
}

function writeEntry(file: string, entry: CacheEntry): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, JSON.stringify(entry), { mode: 0o600 });
    renameSync(temporary, file);
  } catch (error) {
    log.debug(`could not write ${file}: ${(error as Error).message}`);
  }
}

/**
 * loadConfig (same result, same errors), reusing the validated config cached in `cacheDir` when nothing it depends on
 * changed. Only a built binary caches: from source the build has no identity to key on.
 */
export async function loadConfigCached(
  path: string,
  cacheDir: string,
  env: Record<string, string | undefined> = process.env,
): Promise<LoadedConfig> {
  const source = readConfigSource(path);
  const file = join(cacheDir, CONFIG_CACHE_FILE);
  const key = cacheKey(path, source, env);
  if (BUILD_ID !== undefined) {
    const cached = readEntry(file, key);
    if (cached) return { config: cached, path: source === null ? null : path };
  }
  const { parseConfig, defaultConfig } = await import("./loader.ts");
  const { applyEnvOverrides } = await import("./env.ts");
  const config = applyEnvOverrides(source === null ? defaultConfig() : parseConfig(source, path), env);
  if (BUILD_ID !== undefined) writeEntry(file, { key, config });
  return { config, path: source === null ? null : path };
}
