import { openAgentHost, type AgentHost } from "../agent/host.ts";
import { openWorkspace } from "../core/workspace.ts";
import { pluginsPresent } from "../boot/plugins-present.ts";
import { lazyChannelDeliverer } from "../channels/deliver-lazy.ts";

/**
 * Open the agent host for a CLI command. Every entry point (agent, chat, gateway, channels) goes through
 * here so the workspace plugin runtime is initialised before an explicitly selected wasm: backend resolves.
 * MCP servers of config.toml add their tools (each starts on first use).
 * `oneShot`: wait for every plugin before serving (a command that ends, or lists tools once, would miss a late one);
 * with no plugin and no hooks.json in the workspace it does not load the plugin runtime at all (~3-5 ms of a turn).
 */
export async function openHost(workspace?: string, options: { oneShot?: boolean } = {}): Promise<AgentHost> {
  const { mcpClientExtension } = await import("../mcp/extension.ts");
  const mcp = mcpClientExtension();
  if (options.oneShot) {
    const opened = openWorkspace(workspace);
    if (!pluginsPresent(opened)) return openAgentHost({ workspace: opened, extend: mcp.wrap(), deliver: lazyChannelDeliverer });
  }
  const { createPluginExtensions, pluginExtensions } = await import("../agent/plugin-extensions.ts");
  // a one-shot turn waits for every plugin: it would end before a late one joined
  const plugins = options.oneShot ? createPluginExtensions({ joinAfterMs: Infinity }) : pluginExtensions;
  return openAgentHost({ workspace, extend: mcp.wrap(plugins), deliver: lazyChannelDeliverer });
}
