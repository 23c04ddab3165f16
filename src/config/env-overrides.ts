/** Environment overrides for the common keys: variable -> dotted config path. Values are validated by the config schema. */
export const ENV_OVERRIDES: Record<string, string> = {
  PRX_PROVIDER: "default_provider",
  PRX_MODEL: "default_model",
  PRX_GATEWAY_HOST: "gateway.host",
  PRX_GATEWAY_PORT: "gateway.port",
  PRX_MEMORY_BACKEND: "memory.backend",
  PRX_TEMPERATURE: "agent.temperature",
  PRX_MAX_TOOL_ITERATIONS: "agent.max_tool_iterations",
  PRX_STORAGE_BACKEND: "storage.backend",
  PRX_STORAGE_SCHEMA: "storage.schema",
  PRX_BUS_BACKEND: "bus.backend",
  PRX_BUS_PREFIX: "bus.prefix",
};
