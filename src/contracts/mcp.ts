import { z } from "zod";

/**
 * What the MCP subsystem shows the gateway and the CLI: the servers prx connects to (`prx mcp list`,
 * GET /api/mcp), one server's catalogue, a call's answer, and the port through which the gateway serves MCP without
 * importing the MCP modules.
 */

export const McpServerStates = ["stopped", "starting", "ready", "restarting", "failed", "disabled", "closed"] as const;

export const McpServerStatusSchema = z.object({
  name: z.string(),
  transport: z.enum(["stdio", "http"]),
  target: z.string().describe("the command line (stdio) or the URL"),
  enabled: z.boolean(),
  eager: z.boolean().describe("started with the gateway rather than on first use"),
  state: z.enum(McpServerStates),
  connected_via: z.enum(["stdio", "streamable-http", "sse"]).nullable().describe("while running"),
  pid: z.number().int().nullable(),
  tools_from: z.enum(["server", "cache"]).nullable().describe("where the tool list comes from; null: never read"),
  tools: z.array(
    z.object({
      name: z.string().describe("the name the model sees: mcp__<server>__<tool>"),
      tool: z.string().describe("the server's own name for it"),
      description: z.string(),
    }),
  ),
  calls: z.number().int(),
  errors: z.number().int(),
  restarts: z.number().int(),
  garbage_lines: z.number().int().describe("lines on stdout that were not protocol, skipped"),
  last_error: z.string().nullable(),
  retry_in_ms: z.number().int().describe("while down: how long until prx may start it again"),
});
export type McpServerStatus = z.infer<typeof McpServerStatusSchema>;

export const McpListSchema = z
  .object({
    servers: z.array(McpServerStatusSchema),
    serve: z.object({ tools: z.array(z.string()).describe("tools `prx mcp serve` and POST /mcp expose") }),
  })
  .describe("MCP servers prx connects to, and what it serves");
export type McpList = z.infer<typeof McpListSchema>;

export const McpServerDetailSchema = McpServerStatusSchema
  .extend({
    resources: z.array(
      z.object({ uri: z.string(), name: z.string(), description: z.string().nullable(), mime_type: z.string().nullable() }),
    ),
    prompts: z.array(
      z.object({
        name: z.string(),
        description: z.string().nullable(),
        arguments: z.array(z.object({ name: z.string(), required: z.boolean(), description: z.string().nullable() })),
      }),
    ),
  })
  .describe("one MCP server: status, tools, resources and prompts (starts the server)");
export type McpServerDetail = z.infer<typeof McpServerDetailSchema>;

export const McpCallBodySchema = z.strictObject({
  tool: z.string().min(1).describe("the server's own tool name"),
  arguments: z.record(z.string(), z.unknown()).default({}),
});
export type McpCallBody = z.infer<typeof McpCallBodySchema>;

export const McpCallResponseSchema = z
  .object({
    server: z.string(),
    tool: z.string(),
    success: z.boolean(),
    output: z.string().describe("the result as the model sees it (text, notes for images, embedded resources)"),
    error: z.string().nullable(),
  })
  .describe("one tool call through prx's tool registry");
export type McpCallResponse = z.infer<typeof McpCallResponseSchema>;

/** What the gateway's MCP routes need, implemented by the MCP subsystem over the gateway's agent host. */
export interface McpGatewayPort {
  list(): Promise<McpList>;
  detail(server: string): Promise<McpServerDetail>;
  call(server: string, body: McpCallBody, signal: AbortSignal): Promise<McpCallResponse>;
  /** Restart one server now (closing its session, forgetting its backoff); its status once it is ready. */
  restart(server: string): Promise<McpServerStatus>;
  /** One Streamable HTTP request to prx's own MCP server (POST /mcp), its JSON body already read. */
  serve(request: Request, body: unknown): Promise<Response>;
}

/** The body of POST /mcp: one JSON-RPC 2.0 message or a batch (the MCP SDK checks each message). */
export const McpRpcBodySchema = z
  .union([z.looseObject({ jsonrpc: z.literal("2.0") }), z.array(z.looseObject({ jsonrpc: z.literal("2.0") }))])
  .describe("a JSON-RPC 2.0 message of MCP (initialize, tools/list, tools/call, ...) or a batch");
