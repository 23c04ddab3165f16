export * from "./schema.ts";
export { loadConfig, parseConfig, CONFIG_MAX_BYTES, type LoadedConfig } from "./loader.ts";
export { applyEnvOverrides, secretFromEnv, ENV_OVERRIDES } from "./env.ts";
