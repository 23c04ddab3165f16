import type { AgentHost } from "../agent/host.ts";
import type { McpCallResponse } from "../contracts/mcp.ts";
import { PrxError } from "../core/errors.ts";
import type { McpManager } from "./manager.ts";
import { MCP_SERVE_SESSION } from "./serve/exposed.ts";

/**
 * Call a server's tool by its own name (`prx mcp call`, POST /api/mcp/<server>/call) through the host's tool
 * registry, as a model's call would go: same name mapping, argument check, output cap and counters. A tool the
 * server never listed, or one [mcp.servers.<name>] tools / exclude leaves out, is NOT_FOUND.
 */
export async function callServerTool(
  host: Pick<AgentHost, "tools" | "workspace">,
  manager: McpManager,
  server: string,
  tool: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<McpCallResponse> {
  const handle = manager.handle(server);
  const find = () => manager.namedTools().find((t) => t.server === server && t.tool === tool);
  let named = find();
  if (!named) {
    await handle.listTools();
    named = find();
  }
  if (!named) {
    const offered = manager.namedTools().filter((t) => t.server === server).map((t) => t.tool);
    throw new PrxError("NOT_FOUND", `MCP server "${server}" offers no tool "${tool}"`, {
      status: 404,
      hint: offered.length > 0
        ? `its tools: ${offered.join(", ")} (a tool left out by [mcp.servers.${server}] tools / exclude is not offered)`
        : `it offers no tools (check [mcp.servers.${server}] tools / exclude)`,
    });
  }
  const result = await host.tools.call(named.name, JSON.stringify(args), {
    sessionId: MCP_SERVE_SESSION,
    workspace: host.workspace.root,
    signal,
  });
  return { server, tool, success: result.success, output: result.output, error: result.error ?? null };
}
