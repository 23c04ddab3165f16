import type { ToolsConfig } from "../../config/schema.ts";
import type { MemoryBackend } from "../../memory/types.ts";

export interface BuiltinToolsOptions {
  config: ToolsConfig;
  /** Root the file tools are confined to and the shell's working directory. */
  workspace: string;
  /** Called at each call, so the backend can be swapped (config reload, wasm generation). */
  memory: () => MemoryBackend;
  /** Folders outside the workspace file_read may read by their full path (never write): the offered skills'. */
  readableDirs?: () => readonly string[];
}
