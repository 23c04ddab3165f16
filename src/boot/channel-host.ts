import type { OpenAgentHostOptions } from "../agent/host.ts";

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
