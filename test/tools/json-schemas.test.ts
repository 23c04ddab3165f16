/** The JSON Schema the model is shown for each built-in tool is generated from that tool's own zod argument schema. */
import { expect, test } from "bun:test";
import { ConfigSchema } from "../../src/config/schema.ts";
import { NoneMemory } from "../../src/memory/none.ts";
import { createBuiltinTools } from "../../src/tools/builtins/implementations.ts";
import { BUILTIN_TOOL_ARGS } from "../../src/tools/builtins/schemas.ts";
import { inputJsonSchema } from "../../src/core/input-json-schema.ts";

test("every built-in tool offers the JSON Schema of its own argument schema", () => {
  const memory = new NoneMemory();
  const tools = createBuiltinTools({ config: ConfigSchema.parse({}).tools, workspace: "/tmp", memory: () => memory });
  expect(tools.map((tool) => tool.spec.name).sort()).toEqual(Object.keys(BUILTIN_TOOL_ARGS).sort());
  for (const tool of tools) {
    expect(tool.spec.parameters).toEqual(inputJsonSchema(BUILTIN_TOOL_ARGS[tool.spec.name as keyof typeof BUILTIN_TOOL_ARGS]));
  }
});
