import type { Config } from "../config/schema.ts";
import type { Workspace } from "../core/workspace.ts";
import type { HostExtensions, OpenAgentHostOptions } from "../agent/host.ts";

export interface PluginSummary {
  name: string;
  status: "active" | "error" | "disabled";
  message?: string;
}

/** Plugin runtime contributions to an agent host (wired to the workspace PluginRuntime). */
export const pluginExtensions: NonNullable<OpenAgentHostOptions["extend"]> = async (): Promise<HostExtensions> => ({});

/** Plugin statuses for `prx doctor`. */
export async function describePlugins(_workspace: Workspace, _config: Config): Promise<PluginSummary[]> {
  return [];
}
