import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import { createMcpServer } from "./server.ts";
import type { ServedTools } from "./exposed.ts";

/**
 * One POST of MCP's Streamable HTTP transport, stateless: a server and a transport per request answering with JSON
 * (no session, no server-to-client stream), as the SDK does for servers behind a load balancer. The gateway has read
 * the body (within its size limit) and checked the bearer token.
 */
export async function serveHttpRequest(
  tools: ServedTools,
  version: string,
  request: Request,
  body: unknown,
  logger: Logger,
): Promise<Response> {
  const server = createMcpServer(tools, version);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  transport.onerror = (error) => logger.debug("MCP request refused", { error: errorMessage(error) });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    await server.close();
  }
}
