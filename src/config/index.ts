export * from "./schema.ts";
export { loadConfig, parseConfig, CONFIG_MAX_BYTES, type LoadedConfig } from "./loader.ts";
export { applyEnvOverrides } from "./env.ts";
export { ENV_OVERRIDES } from "./env-overrides.ts";
export { secretFromEnv } from "./secrets.ts";
export { loadConfigCached, CONFIG_CACHE_FILE } from "./cache.ts";
