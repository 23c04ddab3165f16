import type { ToolsConfig } from "../../config/schema.ts";
import type { MemoryBackend } from "../../memory/types.ts";
import type { ToolContext, ToolResult } from "../types.ts";

export interface BuiltinToolsOptions {
  config: ToolsConfig;
  /** Root the file tools are confined to and the shell's working directory. */
  workspace: string;
  /** Called at each call, so the backend can be swapped (config reload, wasm generation). */
  memory: () => MemoryBackend;
  /** Call another tool of the host by name (web_search's mcp backend asks an MCP server's search tool). */
  callTool?: (name: string, rawArguments: string, context: ToolContext) => Promise<ToolResult>;
  /** Folders outside the workspace file_read may read by their full path (never write): the offered skills'. */
  readableDirs?: () => readonly string[];
}
