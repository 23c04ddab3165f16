import type { ToolsConfig } from "../../config/schema.ts";
import type { MemoryBackend } from "../../memory/types.ts";
import type { Tool } from "../types.ts";
import { createFileTools } from "./files.ts";
import { createHttpTool } from "./http.ts";
import { createMemoryTools } from "./memory.ts";
import { createShellTool } from "./shell.ts";

export interface BuiltinToolsOptions {
  config: ToolsConfig;
  /** Root the file tools are confined to and the shell's working directory. */
  workspace: string;
  /** Called at each call, so the backend can be swapped (config reload, wasm generation). */
  memory: () => MemoryBackend;
}

/** All built-in tools; the registry hides those in config.tools.disabled. The shell refuses unless enabled. */
export function createBuiltinTools(options: BuiltinToolsOptions): Tool[] {
  return [
    ...createMemoryTools(options.memory),
    createHttpTool(options.config),
    ...createFileTools(options.config, options.workspace),
    createShellTool(options.config, options.workspace),
  ];
}

export { createFileTools, createHttpTool, createMemoryTools, createShellTool };
export { MEMORY_RECALL_DEFAULT_LIMIT } from "./memory.ts";
export { SHELL_ENABLE_HINT } from "./shell.ts";
