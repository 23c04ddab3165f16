/**
 * The JSON Schemas the model is shown for the built-in tools are generated ahead of time (so offering the tools builds
 * no zod schema): they must be what the tools' own zod schemas say, and every built-in tool must offer its own.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { ConfigSchema } from "../../src/config/schema.ts";
import { NoneMemory } from "../../src/memory/none.ts";
import { createBuiltinTools } from "../../src/tools/builtins/index.ts";
import { BUILTIN_TOOL_PARAMETERS } from "../../src/tools/builtins/json-schemas.ts";
import { JSON_SCHEMAS_FILE, jsonSchemasSource } from "../../src/tools/builtins/regenerate.ts";
import { BUILTIN_TOOL_ARGS } from "../../src/tools/builtins/schemas.ts";
import { inputJsonSchema } from "../../src/core/input-json-schema.ts";

test("json-schemas.ts is what the generator makes of the zod schemas (else: bun src/tools/builtins/regenerate.ts)", () => {
  expect(readFileSync(JSON_SCHEMAS_FILE, "utf8")).toBe(jsonSchemasSource());
});

test("each built-in tool's parameters are the JSON Schema of its argument schema", () => {
  for (const [name, schema] of Object.entries(BUILTIN_TOOL_ARGS)) {
    expect(BUILTIN_TOOL_PARAMETERS[name as keyof typeof BUILTIN_TOOL_ARGS]).toEqual(inputJsonSchema(schema));
  }
});

test("every built-in tool offers the generated parameters of its own name", () => {
  const memory = new NoneMemory();
  const tools = createBuiltinTools({ config: ConfigSchema.parse({}).tools, workspace: "/tmp", memory: () => memory });
  expect(tools.map((tool) => tool.spec.name).sort()).toEqual(Object.keys(BUILTIN_TOOL_ARGS).sort());
  for (const tool of tools) {
    expect(tool.spec.parameters).toEqual(BUILTIN_TOOL_PARAMETERS[tool.spec.name as keyof typeof BUILTIN_TOOL_ARGS]);
  }
});
