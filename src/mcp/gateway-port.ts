import type { AgentHost } from "../agent/host.ts";
import type { McpGatewayPort, McpList } from "../contracts/mcp.ts";
import { PrxError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { callServerTool } from "./call.ts";
import type { McpClientExtension } from "./extension.ts";
import type { McpManager } from "./manager.ts";
import { servedTools } from "./serve/exposed.ts";
import { serverDetail, serverStatus } from "./status.ts";

export type PortHost = Pick<AgentHost, "tools" | "runTurn" | "plugins" | "workspace" | "events" | "config" | "extensions" | "loadExtensions">;

/**
 * The gateway's MCP routes over its agent host: the client's servers (from the host's MCP extension) and prx's own
 * MCP server for POST /mcp. Everything waits for the host's deferred extensions (plugins and MCP servers) first.
 */
export function createMcpGatewayPort(
  host: PortHost,
  client: McpClientExtension,
  options: { version: string; logger: Logger },
): McpGatewayPort {
  const ready = async () => {
    if (host.extensions.state !== "ready") await host.loadExtensions();
  };
  const manager = async (): Promise<McpManager> => {
    await ready();
    const found = client.manager();
    if (!found) {
      throw new PrxError("NOT_FOUND", "no MCP server is configured", {
        status: 404,
        hint: "add one as [mcp.servers.<name>] in config.toml and restart the gateway",
      });
    }
    return found;
  };
  const served = () => servedTools(host, host.config.mcp.serve.tools);
  return {
    async list(): Promise<McpList> {
      await ready();
      const servers = client.manager();
      return {
        servers: servers ? servers.handles().map((handle) => serverStatus(servers, handle)) : [],
        serve: { tools: served().specs().map((spec) => spec.name) },
      };
    },
    detail: async (server) => serverDetail(await manager(), server),
    call: async (server, body, signal) => callServerTool(host, await manager(), server, body.tool, body.arguments, signal),
    async restart(server) {
      const servers = await manager();
      const handle = servers.handle(server);
      await handle.restart();
      return serverStatus(servers, handle);
    },
    async serve(request, body) {
      await ready();
      const { serveHttpRequest } = await import("./serve/http.ts");
      return serveHttpRequest(served(), options.version, request, body, options.logger);
    },
  };
}
