import type { ToolsConfig } from "../../config/schema.ts";
import { defineTool } from "../define.ts";
import type { Tool } from "../types.ts";
import { BUILTIN_TOOL_DESCRIPTIONS, WebFetchArgs } from "./schemas.ts";

/** web_fetch: a public page as readable text, through the outbound guard. */
export function createWebFetchTool(config: ToolsConfig): Tool {
  return defineTool({
    name: "web_fetch",
    description: BUILTIN_TOOL_DESCRIPTIONS.web_fetch,
    args: WebFetchArgs,
    async run(args, context) {
      return (await import("./web-fetch-run.ts")).webFetch(config, args, context);
    },
  });
}
