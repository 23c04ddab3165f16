import { openAgentHost, type AgentHost } from "../agent/index.ts";

/**
 * Open the agent host for a CLI command. Every entry point (agent, chat, gateway, channels) goes through
 * here so the workspace plugin runtime is initialised before an explicitly selected wasm: backend resolves.
 * MCP servers of config.toml add their tools (each starts on first use).
 */
/** `oneShot`: wait for every plugin before serving (a command that ends, or lists tools once, would miss a late one). */
export async function openHost(workspace?: string, options: { oneShot?: boolean } = {}): Promise<AgentHost> {
  const { createPluginExtensions, pluginExtensions } = await import("../agent/plugin-extensions.ts");
  const { mcpClientExtension } = await import("../mcp/extension.ts");
  // a one-shot turn waits for every plugin: it would end before a late one joined
  const plugins = options.oneShot ? createPluginExtensions({ joinAfterMs: Infinity }) : pluginExtensions;
  return openAgentHost({ workspace, extend: mcpClientExtension().wrap(plugins) });
}
