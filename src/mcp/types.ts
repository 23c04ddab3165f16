import type { McpServerConfig } from "../config/mcp.ts";
import type { Logger } from "../core/logger.ts";
import type { McpPromptInfo, McpResourceInfo } from "./catalog.ts";
import type { Environment } from "./launch.ts";
import type { McpToolInfo } from "./tool-list.ts";
import type { CallToolResult } from "./wire.ts";

export interface ConnectOptions {
  name: string;
  config: McpServerConfig;
  workspaceRoot: string;
  env: Environment;
  clientVersion: string;
  logger: Logger;
  /** The server said its tool list changed (notifications/tools/list_changed). */
  onToolsChanged: () => void;
  /** The connection is gone (the process exited, the HTTP session ended, or close() was called). */
  onClosed: (reason: string) => void;
  /** Aborts a start in progress (prx is closing): the server is stopped and connectServer rejects. */
  signal?: AbortSignal;
}

/** One running session with a server: what the rest of prx needs of the SDK's Client. */
export interface McpConnection {
  readonly transport: "stdio" | "streamable-http" | "sse";
  readonly pid: number | null;
  listTools(): Promise<McpToolInfo[]>;
  listResources(): Promise<McpResourceInfo[]>;
  listPrompts(): Promise<McpPromptInfo[]>;
  callTool(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult>;
  garbageLines(): number;
  stderrTail(): string[];
  close(): Promise<void>;
}
