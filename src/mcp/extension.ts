import type { AgentHost, ExtendBase, HostExtensions, OpenAgentHostOptions } from "../agent/host.ts";
import type { McpConfig } from "../config/mcp.ts";
import { errorMessage, PrxError } from "../core/errors.ts";
import type { McpManager } from "./manager.ts";

type Extend = NonNullable<OpenAgentHostOptions["extend"]>;

export interface McpClientExtension {
  /** `inner` (the plugin extensions) plus the MCP servers' tools; the servers close with the host. */
  wrap(inner?: Extend): Extend;
  /** The servers of the host once its extensions have loaded; undefined before, or when none is configured. */
  manager(): McpManager | undefined;
  /**
   * A reloaded `[mcp]` (after the extensions loaded; before, they read the new configuration when they load): the
   * servers added, removed and changed. The first server configured makes the client and adds its tools to `host`.
   */
  reconfigure(config: McpConfig, host: Pick<AgentHost, "addToolSource">): Promise<{ added: string[]; removed: string[]; changed: string[] }>;
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
  let base: ExtendBase | undefined;
  const create = async (config: McpConfig, workspace: ExtendBase["workspace"]): Promise<McpManager> => {
    const { McpManager } = await import("./manager.ts");
    const servers = new McpManager({ config, workspace, clientVersion: options.clientVersion });
    if (options.eager) servers.startEager();
    return servers;
  };
  return {
    manager: () => manager,
    reconfigure: async (config, host) => {
      if (manager) return manager.reconfigure(config);
      if (!base || Object.keys(config.servers).length === 0) return { added: [], removed: [], changed: [] };
      manager = await create(config, base.workspace);
      host.addToolSource(manager);
      return { added: Object.keys(config.servers).sort(), removed: [], changed: [] };
    },
    wrap: (inner) => async (given: ExtendBase): Promise<HostExtensions> => {
      const extensions = inner ? await inner(given) : {};
      base = given;
      const close = async () => {
        const results = await Promise.allSettled([manager?.close(), extensions.close?.()]);
        const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
        if (failed) {
          throw new PrxError("INTERNAL", `closing the host's MCP servers or plugins failed: ${errorMessage(failed.reason)}`, {
            cause: failed.reason,
          });
        }
      };
      // the configuration in effect now: a reload before the extensions loaded is seen here
      const config = given.config.mcp;
      if (Object.keys(config.servers).length === 0) return { ...extensions, close };
      manager = await create(config, given.workspace);
      return { ...extensions, toolSources: [...(extensions.toolSources ?? []), manager], close };
    },
  };
}
