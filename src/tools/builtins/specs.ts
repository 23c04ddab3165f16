import { inputJsonSchema } from "../../core/input-json-schema.ts";
import type { ToolSpec } from "../../providers/types.ts";
import { BUILTIN_TOOL_ARGS, BUILTIN_TOOL_DESCRIPTIONS, type BuiltinToolName } from "./schemas.ts";

/** What the model is shown of each built-in tool: its description and the JSON Schema of its argument schema. */
export function specsFromSchemas(): ToolSpec[] {
  return (Object.keys(BUILTIN_TOOL_ARGS) as BuiltinToolName[]).map((name) => ({
    name,
    description: BUILTIN_TOOL_DESCRIPTIONS[name],
    parameters: inputJsonSchema(BUILTIN_TOOL_ARGS[name]),
  }));
}
