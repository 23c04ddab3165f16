import type { ToolsConfig } from "../../config/schema.ts";
import { defineTool } from "../define.ts";
import type { Tool } from "../types.ts";
import { ALLOWLIST_HINT } from "./http-allowlist.ts";
import { HttpRequestArgs } from "./schemas.ts";

export function createHttpTool(config: ToolsConfig): Tool {
  return defineTool({
    unavailable:
      config.http_allowlist.length === 0
        ? `http_request is denied: tools.http_allowlist is empty. To allow it, ${ALLOWLIST_HINT}`
        : undefined,
    name: "http_request",
    description: "Make an HTTP request to an allowed URL and return status, content type and body text.",
    args: HttpRequestArgs,
    async run(args, context) {
      return (await import("./http-fetch.ts")).httpRequest(config, args, context);
    },
  });
}
