import { PrxError } from "../../core/errors.ts";
import type { Tool } from "../types.ts";
import { createCronTool } from "./cron.ts";
import { cronUnavailable } from "./cron-policy.ts";
import { createFileTools } from "./files.ts";
import { createHttpTool } from "./http.ts";
import { createMemoryTools } from "./memory.ts";
import { createShellTool } from "./shell.ts";
import { createWebFetchTool } from "./web-fetch.ts";
import { createWebSearchTool } from "./web-search.ts";
import type { BuiltinToolsOptions } from "./types.ts";
import { createDelegateTool } from "./delegate.ts";
import { createMessageSendTool } from "./message-send.ts";
import { createSessionTools } from "./sessions.ts";

/**
 * All built-in tools, built with their argument schemas; the registry hides those in config.tools.disabled. The shell
 * refuses unless enabled. A host opens them through openBuiltinTools (catalog.ts), which loads this with the first call.
 */
export function createBuiltinTools(options: BuiltinToolsOptions): Tool[] {
  return [
    ...createMemoryTools(options.memory),
    createHttpTool(options.config),
    ...createFileTools(options.config, options.workspace, options.readableDirs),
    createWebFetchTool(options.config),
    createWebSearchTool(options.config, options.callTool),
    createShellTool(options.config, options.workspace),
    createMessageSendTool(options),
    ...createSessionTools(options),
    createDelegateTool(options),
    createCronTool(options.cron ?? noCronStores, cronUnavailable(options)),
  ];
}

function noCronStores(): never {
  throw new PrxError("TOOL_FAILED", cronUnavailable({})!);
}

export { createFileTools, createHttpTool, createMemoryTools, createShellTool, createWebFetchTool, createWebSearchTool };
export { createDelegateTool, createMessageSendTool, createSessionTools };
