import type { ToolsConfig } from "../../config/schema.ts";
import { defineTool } from "../define.ts";
import type { Tool } from "../types.ts";
import { httpUnavailable } from "./http-allowlist.ts";
import { BUILTIN_TOOL_DESCRIPTIONS, HttpRequestArgs } from "./schemas.ts";

export function createHttpTool(config: ToolsConfig): Tool {
  return defineTool({
    unavailable: httpUnavailable(config),
    name: "http_request",
    description: BUILTIN_TOOL_DESCRIPTIONS.http_request,
    args: HttpRequestArgs,
    async run(args, context) {
      return (await import("./http-fetch.ts")).httpRequest(config, args, context);
    },
  });
}
