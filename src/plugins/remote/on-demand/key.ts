import { sha256Hex } from "../../../core/ids.ts";
import type { AgentIdentity } from "../agent.ts";
import type { StartRemotePluginOptions } from "../types.ts";
import { pluginCodeHash } from "./code-hash.ts";

/**
 * The key a plugin's descriptor is cached under: its code (pluginCodeHash), its entry, and what its init sees
 * (settings, the agent's identity), as init may add surfaces depending on them. Null when its code cannot be hashed.
 */
export function descriptorKey(
  options: Pick<StartRemotePluginOptions, "dir" | "entryPath" | "settings">,
  agent: AgentIdentity | undefined,
): string | null {
  const code = pluginCodeHash(options.dir);
  if (code === null) return null;
  const settings = Object.entries(options.settings).sort(([a], [b]) => (a < b ? -1 : 1));
  return sha256Hex(JSON.stringify({ code, entry: options.entryPath, settings, agent: agent ?? null }));
}
