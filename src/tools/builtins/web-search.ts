import type { ToolsConfig } from "../../config/schema.ts";
import { defineTool } from "../define.ts";
import type { Tool } from "../types.ts";
import type { BuiltinToolsOptions } from "./types.ts";
import { BUILTIN_TOOL_DESCRIPTIONS, WebSearchArgs } from "./schemas.ts";
import { webSearchUnavailable } from "./web-search-policy.ts";

/** web_search: the configured backend's results; not offered without one. */
export function createWebSearchTool(config: ToolsConfig, callTool?: BuiltinToolsOptions["callTool"]): Tool {
  return defineTool({
    unavailable: webSearchUnavailable(config),
    name: "web_search",
    description: BUILTIN_TOOL_DESCRIPTIONS.web_search,
    args: WebSearchArgs,
    async run(args, context) {
      return (await import("./web-search-run.ts")).webSearch(config, args, context, callTool);
    },
  });
}
