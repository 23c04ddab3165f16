import type { ToolsConfig } from "../../config/schema.ts";

export const SHELL_ENABLE_HINT =
  "set [tools] shell_enabled = true and list the programs in shell_allowlist in config.toml, " +
  'e.g. shell_allowlist = ["git", "ls"]';

/** Why the shell refuses every call under this config, or undefined when it can run something. */
export function shellUnavailable(config: ToolsConfig): string | undefined {
  if (!config.shell_enabled) return `the shell tool is disabled. To enable it, ${SHELL_ENABLE_HINT}`;
  if (config.shell_allowlist.length === 0) return `tools.shell_allowlist is empty. To allow programs, ${SHELL_ENABLE_HINT}`;
  return undefined;
}
