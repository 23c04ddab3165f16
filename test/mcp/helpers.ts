import { join, resolve } from "node:path";
import { McpConfigSchema } from "../../src/config/mcp.ts";
import { getLogLevel, getLogSink, setLogLevel, setLogSink } from "../../src/core/logger.ts";
import { McpManager } from "../../src/mcp/manager.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { tempWorkspace, type TempWorkspace } from "../helpers/workspace.ts";

export const ROOT = resolve(import.meta.dir, "../..");
/** The hand-written stdio server of the bad-input and lifecycle tests. */
export const FIXTURE = join(import.meta.dir, "fixtures", "stdio-server.ts");
/** The MCP project's reference server from npm (a devDependency), run by Bun. */
export const EVERYTHING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");

/** `[mcp.servers.<name>]` of the fixture with these flags (and any other keys). */
export function fixture(flags: string[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [FIXTURE, ...flags], ...extra };
}

export function everything(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [EVERYTHING, "stdio"], ...extra };
}

/** Temporary workspaces, removed by cleanup(). */
export function workspaces(): { make(): { root: string; cacheDir: string }; cleanup(): void } {
  const made: TempWorkspace[] = [];
  return {
    make() {
      const ws = tempWorkspace(undefined, { prefix: "prx-mcp-" });
      made.push(ws);
      return { root: ws.dir, cacheDir: join(ws.dir, "cache") };
    },
    cleanup: () => made.splice(0).forEach((ws) => ws.cleanup()),
  };
}

export function managerFor(servers: Record<string, Record<string, unknown>>, workspace: { root: string; cacheDir: string }): McpManager {
  return new McpManager({ config: McpConfigSchema.parse({ servers }), workspace });
}

export function toolContext(workspace: string, signal = new AbortController().signal): ToolContext {
  return { sessionId: "test", workspace, signal };
}

/** Log lines (info and up) while `run` runs. */
export async function captureLog<T>(run: (lines: string[]) => Promise<T>): Promise<T> {
  const lines: string[] = [];
  const [sink, level] = [getLogSink(), getLogLevel()];
  setLogSink((line) => void lines.push(line));
  setLogLevel("info");
  try {
    return await run(lines);
  } finally {
    setLogSink(sink);
    setLogLevel(level);
  }
}

export { alive } from "../helpers/process.ts";
