import type { Setting } from "../../core/setting.ts";
import {
  McpCallBodySchema,
  McpCallResponseSchema,
  McpListSchema,
  McpRpcBodySchema,
  McpServerDetailSchema,
  McpServerStatusSchema,
  type McpGatewayPort,
} from "../../contracts/mcp.ts";
import { jsonParser } from "../body.ts";
import type { GatewayElysia } from "../elysia.ts";
import { routeSchema } from "../route-schema.ts";
import { jsonResponse } from "../errors.ts";
import { doc } from "../openapi/doc.ts";
import type { GatewayMount } from "../types.ts";

const McpCallBody = routeSchema(McpCallBodySchema);
const McpRpcBody = routeSchema(McpRpcBodySchema);

/**
 * The MCP routes, behind the gateway's bearer auth like every /api route: the MCP servers prx connects to
 * (/api/mcp) and prx's own MCP server over Streamable HTTP (POST /mcp; stateless, JSON answers, so GET and DELETE
 * are 405). `port` loads the MCP modules on the first request that needs them.
 */
export function mcpRoutes(port: () => Promise<McpGatewayPort>, maxBodyBytes: Setting<number>): GatewayMount {
  const notAllowed = () =>
    jsonResponse(
      { error: { code: "BAD_REQUEST", message: "prx serves MCP statelessly: POST JSON-RPC messages to /mcp (no SSE stream, no session to delete)" } },
      405,
      { allow: "POST" },
    );
  return (app: GatewayElysia) =>
    app
      .get("/api/mcp", async () => jsonResponse(await (await port()).list()), {
        detail: doc({
          summary: "MCP servers prx connects to: state, tools (as the model sees them), counters; what prx mcp serve exposes",
          tags: ["mcp"],
          responses: { 200: McpListSchema },
        }),
      })
      .get("/api/mcp/:server", async ({ params }) => jsonResponse(await (await port()).detail(params.server)), {
        detail: doc({
          summary: "One MCP server with its tools, resources and prompts (starts it if it is not running)",
          tags: ["mcp"],
          responses: { 200: McpServerDetailSchema },
          errors: [404, 502, 503, 504],
        }),
      })
      .post("/api/mcp/:server/restart", async ({ params }) => jsonResponse(await (await port()).restart(params.server)), {
        detail: doc({
          summary: "Restart one MCP server now: its session is closed and a new one started (the backoff of failed starts forgotten)",
          tags: ["mcp"],
          responses: { 200: McpServerStatusSchema },
          errors: [404, 502, 503, 504],
        }),
      })
      .post(
        "/api/mcp/:server/call",
        async ({ params, request, body }) => jsonResponse(await (await port()).call(params.server, body, request.signal)),
        {
          body: McpCallBody,
          parse: jsonParser(maxBodyBytes),
          detail: doc({
            summary: "Call one of the server's tools (its own name) through prx's tool registry, as the model would",
            tags: ["mcp"],
            responses: { 200: McpCallResponseSchema },
            errors: [400, 404, 413, 415, 502, 503, 504],
          }),
        },
      )
      .post(
        "/mcp",
        async ({ request, body }) => (await port()).serve(request, body),
        {
          body: McpRpcBody,
          parse: jsonParser(maxBodyBytes),
          detail: doc({
            summary: "prx's MCP server (Streamable HTTP, stateless): the tools [mcp.serve] tools exposes",
            tags: ["mcp"],
            responses: { 200: { description: "the JSON-RPC response(s); 202 for notifications" } },
            errors: [400, 413, 415],
          }),
        },
      )
      .get("/mcp", notAllowed, { detail: doc({ summary: "405: prx's MCP server has no SSE stream", tags: ["mcp"], responses: { 405: { description: "use POST" } } }) })
      .delete("/mcp", notAllowed, { detail: doc({ summary: "405: prx's MCP server keeps no session", tags: ["mcp"], responses: { 405: { description: "use POST" } } }) });
}
