import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, isPrxError } from "../../core/errors.ts";
import type { ServedTools } from "./exposed.ts";

const INSTRUCTIONS =
  "prx is a personal AI agent host. memory_store / memory_recall / memory_forget keep and find notes in its memory; " +
  "prx_chat (when offered) asks the prx agent itself; other tools come from the workspace's plugins.";

/** A tool's parameters as an MCP input schema (MCP requires `type: "object"` at the top). */
function inputSchema(parameters: Record<string, unknown>): { type: "object"; [key: string]: unknown } {
  return { ...parameters, type: "object" };
}

/**
 * prx's MCP server for one client session: tools/list and tools/call over the served tools. A failed call is a
 * tool result with isError (the client's model reads the message); a tool that is not served is a protocol error.
 */
export function createMcpServer(tools: ServedTools, version: string): Server {
  const server = new Server({ name: "prx", version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.specs().map((spec) => ({ name: spec.name, description: spec.description, inputSchema: inputSchema(spec.parameters) })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    try {
      const result = await tools.call(name, args ?? {}, extra.signal);
      const text = result.success ? result.output : [result.error, result.output].filter(Boolean).join("\n");
      return { content: [{ type: "text" as const, text }], isError: !result.success };
    } catch (error) {
      // the SDK answers a thrown error with its code and message (an McpError would prefix "MCP error -32602:")
      if (isPrxError(error, "TOOL_UNKNOWN")) throw Object.assign(new Error(errorMessage(error)), { code: ErrorCode.InvalidParams });
      return { content: [{ type: "text" as const, text: errorMessage(error) }], isError: true };
    }
  });
  return server;
}
