export type { Tool, ToolContext, ToolResult, ToolSource } from "./types.ts";
export { ToolResultSchema } from "./types.ts";
export { ToolRegistry, parseArguments, type ToolCounts, type ToolRegistryOptions } from "./registry.ts";
export { defineTool, describeIssues, type ToolDefinition } from "./define.ts";
export { ok, fail, truncateUtf8, capResult, TRUNCATION_MARKER } from "./result.ts";
export * from "./limits.ts";
export * from "./builtins/index.ts";
