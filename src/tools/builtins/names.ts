import { MANAGE_TOOL_NAME } from "../../core/tool-names.ts";

/**
 * Names of prx's built-in tools, known without building them: no plugin or other tool source may take one,
 * whether or not the tool is enabled (a test keeps this list equal to createBuiltinTools()).
 */
export const BUILTIN_TOOL_NAMES: readonly string[] = [
  "memory_store",
  "memory_recall",
  "memory_forget",
  "http_request",
  "file_read",
  "file_write",
  "file_edit",
  "web_fetch",
  "web_search",
  "shell",
  "message_send",
  "sessions_list",
  "sessions_history",
  "delegate",
  "cron",
];

/** The plugin runtime's management tool (src/plugins/manage-tool.ts), built in like the others (opt-in for the model). */
export { MANAGE_TOOL_NAME };

/** Names no plugin (or other tool source) may declare. */
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set([...BUILTIN_TOOL_NAMES, MANAGE_TOOL_NAME]);
