import type { ToolsConfig } from "../../config/schema.ts";
import type { MemoryBackend } from "../../memory/types.ts";
import type { CronToolStores } from "./cron.ts";

export interface BuiltinToolsOptions {
  config: ToolsConfig;
  /** Root the file tools are confined to and the shell's working directory. */
  workspace: string;
  /** Called at each call, so the backend can be swapped (config reload, wasm generation). */
  memory: () => MemoryBackend;
  /** The cron tool's jobs (the host's storage); without it the tool refuses every call. */
  cron?: () => CronToolStores;
}
