import { fail } from "./result.ts";
import { ToolResultSchema } from "./result-schema.ts";
import type { ToolResult } from "./types.ts";

/** A tool's value as a ToolResult, or a failure saying how it is malformed. */
export function checkedResult(name: string, value: unknown): ToolResult {
  const result = ToolResultSchema.safeParse(value);
  return result.success ? result.data : fail(`tool ${name} returned a malformed result: ${result.error.message}`);
}
