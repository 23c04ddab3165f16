import type { OpenAgentHostOptions } from "../agent/host.ts";
import type { Config } from "../config/schema.ts";
import type { Workspace } from "../core/workspace.ts";
import { pluginsPresent } from "./plugins-present.ts";

type Extend = NonNullable<OpenAgentHostOptions["extend"]>;

/**
 * The extensions of a channel process's agent host: the same as the gateway's and `prx agent`'s (plugins, hooks,
 * and the tools of `[mcp.servers.*]`), so a chat offers the tools the terminal does. Channels cannot import the MCP
 * client (a peer of theirs): `prx channel run` hands this in. Its modules load when the host opens, after the
 * platform is connected.
 */
export function channelHostExtensions(): Extend {
  return async (base) => {
    const [{ createPluginExtensions }, { mcpClientExtension }] = await Promise.all([import("../agent/plugin-extensions.ts"), import("../mcp/extension.ts")]);
    return mcpClientExtension().wrap(createPluginExtensions())(base);
  };
}

/**
 * Whether a channel process's turn needs those extensions yet: a plugin or hooks.json in the workspace, an MCP server
 * configured, or events shared between replicas. Until then the plugin runtime and the MCP client stay unloaded
 * (~4 MB of the process's RSS); checked at every turn, so a plugin installed while the process runs is loaded by the
 * next one (and a reload the gateway forwards loads it at once).
 */
export function channelExtensionsNeeded({ workspace, config }: { workspace: Workspace; config: Config }): boolean {
  return config.bus.backend !== "local" || Object.keys(config.mcp.servers).length > 0 || pluginsPresent(workspace);
}
