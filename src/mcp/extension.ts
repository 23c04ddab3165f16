import type { ExtendBase, HostExtensions, OpenAgentHostOptions } from "../agent/host.ts";
import { errorMessage, PrxError } from "../core/errors.ts";
import type { McpManager } from "./manager.ts";

type Extend = NonNullable<OpenAgentHostOptions["extend"]>;

export interface McpClientExtension {
  /** `inner` (the plugin extensions) plus the MCP servers' tools; the servers close with the host. */
  wrap(inner?: Extend): Extend;
  /** The servers of the host once its extensions have loaded; undefined before, or when none is configured. */
  manager(): McpManager | undefined;
}

export interface McpClientExtensionOptions {
  /** Start `eager = true` servers when the extensions load (the gateway). */
  eager?: boolean;
  /** Sent to servers as the client's version. */
  clientVersion?: string;
}

/**
 * The MCP client's contribution to an agent host: one ToolSource for every `[mcp.servers.<name>]`. With no server
 * configured it adds nothing and loads nothing (the MCP modules and the SDK load only when a server exists, the
 * SDK only once one starts).
 */
export function mcpClientExtension(options: McpClientExtensionOptions = {}): McpClientExtension {
  let manager: McpManager | undefined;
  return {
    manager: () => manager,
    wrap: (inner) => async (base: ExtendBase): Promise<HostExtensions> => {
      const extensions = inner ? await inner(base) : {};
      if (Object.keys(base.config.mcp.servers).length === 0) return extensions;
      const { McpManager } = await import("./manager.ts");
      const servers = new McpManager({
        config: base.config.mcp,
        workspace: base.workspace,
        clientVersion: options.clientVersion,
      });
      manager = servers;
      if (options.eager) servers.startEager();
      return {
        ...extensions,
        toolSources: [...(extensions.toolSources ?? []), servers],
        close: async () => {
          const results = await Promise.allSettled([servers.close(), extensions.close?.()]);
          const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
          if (failed) {
            throw new PrxError("INTERNAL", `closing the host's MCP servers or plugins failed: ${errorMessage(failed.reason)}`, {
              cause: failed.reason,
            });
          }
        },
      };
    },
  };
}
