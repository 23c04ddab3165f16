import { loadSecretsFile } from "./secrets-file.ts";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "../core/logger.ts";
import { ENV_OVERRIDES } from "./env-overrides.ts";
import type { LoadedConfig } from "./loader.ts";
import type { Config } from "./schema.ts";
import { schemaFingerprint } from "./schema-fingerprint.ts";
import { readConfigSource } from "./source.ts";

/**
 * The validated config of the last start, in the workspace's cache/. Loading zod, building the config schema and
 * validating a config is most of a warm `prx agent -m` (src/boot/tricks.ts has the measure); the result depends
 * only on the file's text, the override variables and the code that validates it (schema-fingerprint.ts), so it is
 * reused while those stay the same. Any change to one of them validates again, and a cache that cannot be read or
 * written is only skipped.
 */
export const CONFIG_CACHE_FILE = "config.json";

interface CacheEntry {
  key: string;
  config: Config;
}

const log = createLogger("config");

/** What the validated config depends on: the validating code, the file (path and text), the override variables. */
function cacheKey(path: string, source: string | null, env: Record<string, string | undefined>): string {
  const overrides = Object.keys(ENV_OVERRIDES).map((name) => env[name] ?? null);
  const text = source === null ? "missing" : `${source.length}:${Bun.hash(source).toString(36)}`;
  return JSON.stringify([schemaFingerprint(), path, text, overrides]);
}

function readEntry(file: string, key: string): Config | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") log.debug(`ignoring ${file}: ${(error as Error).message}`);
    return null;
  }
  try {
    const entry = JSON.parse(text) as CacheEntry;
    return entry.key === key && typeof entry.config === "object" && entry.config !== null ? entry.config : null;
  } catch (error) {
    log.debug(`ignoring ${file}: ${(error as Error).message}`);
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
 * changed. The only reader of the cache.
 */
export async function loadConfigCached(
  path: string,
  cacheDir: string,
  env: Record<string, string | undefined> = process.env,
): Promise<LoadedConfig> {
  loadSecretsFile(path, env);
  const source = readConfigSource(path);
  const file = join(cacheDir, CONFIG_CACHE_FILE);
  const key = cacheKey(path, source, env);
  const cached = readEntry(file, key);
  if (cached) return { config: cached, path: source === null ? null : path };
  const { parseConfig, defaultConfig } = await import("./loader.ts");
  const { applyEnvOverrides } = await import("./env.ts");
  const config = applyEnvOverrides(source === null ? defaultConfig() : parseConfig(source, path), env);
  writeEntry(file, { key, config });
  return { config, path: source === null ? null : path };
}
