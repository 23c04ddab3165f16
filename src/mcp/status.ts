import type { McpServerDetail, McpServerStatus } from "../contracts/mcp.ts";
import type { McpManager } from "./manager.ts";
import type { McpServerHandle } from "./server-handle.ts";

/** How `prx mcp list` shows what a server runs. */
export function targetOf(handle: McpServerHandle): string {
  const { command, args, url } = handle.config;
  if (url !== undefined) return url;
  return [command!, ...(args ?? [])].map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : JSON.stringify(part))).join(" ");
}

export function serverStatus(manager: McpManager, handle: McpServerHandle): McpServerStatus {
  return {
    name: handle.name,
    transport: handle.config.url === undefined ? "stdio" : "http",
    target: targetOf(handle),
    enabled: handle.config.enabled,
    eager: handle.config.eager,
    state: handle.state,
    connected_via: handle.transport,
    pid: handle.pid,
    tools_from: handle.toolsFrom,
    tools: manager
      .namedTools()
      .filter((t) => t.server === handle.name)
      .map(({ name, tool, description }) => ({ name, tool, description })),
    calls: handle.calls,
    errors: handle.errors,
    restarts: handle.restarts,
    garbage_lines: handle.garbageLines,
    last_error: handle.lastError,
    retry_in_ms: handle.state === "restarting" || handle.state === "failed" ? handle.retryIn() : 0,
  };
}

/** Status plus resources and prompts: starts the server (and reads its tools) if it is not running. */
export async function serverDetail(manager: McpManager, name: string): Promise<McpServerDetail> {
  const handle = manager.handle(name);
  await handle.listTools();
  const [resources, prompts] = await Promise.all([handle.listResources(), handle.listPrompts()]);
  return { ...serverStatus(manager, handle), resources, prompts };
}
