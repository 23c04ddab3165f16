import { expect, test } from "bun:test";
import { ConfigSchema } from "../../src/config/schema.ts";
import { NoneMemory } from "../../src/memory/none.ts";
import { createBuiltinTools } from "../../src/tools/builtins/implementations.ts";
import { BUILTIN_TOOL_NAMES, MANAGE_TOOL_NAME, RESERVED_TOOL_NAMES } from "../../src/tools/builtins/names.ts";

test("the reserved names are exactly the built-in tools plus wasm_plugins_manage", () => {
  const memory = new NoneMemory();
  const tools = createBuiltinTools({ config: ConfigSchema.parse({}).tools, workspace: "/tmp", memory: () => memory });
  expect(tools.map((tool) => tool.spec.name).sort()).toEqual([...BUILTIN_TOOL_NAMES].sort());
  expect([...RESERVED_TOOL_NAMES].sort()).toEqual([...BUILTIN_TOOL_NAMES, MANAGE_TOOL_NAME].sort());
});
