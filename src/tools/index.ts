export type { Tool, ToolContext, ToolResult, ToolSource } from "./types.ts";
export { ToolResultSchema } from "./result-schema.ts";
export { toolParameters } from "./json-schema.ts";
export { ToolRegistry, parseArguments, type ToolCounts, type ToolRegistryOptions } from "./registry.ts";
export { defineTool, describeIssues, type ToolDefinition } from "./define.ts";
export { ok, fail, truncateUtf8, capResult, TRUNCATION_MARKER } from "./result.ts";
export * from "./limits.ts";
export * from "./builtins/index.ts";
export { HttpResponseSchema, type HttpToolResponse } from "./builtins/schemas.ts";
