import type { ToolsConfig } from "../../config/schema.ts";
import { defineTool } from "../define.ts";
import type { Tool } from "../types.ts";
import { BUILTIN_TOOL_DESCRIPTIONS, ShellArgs } from "./schemas.ts";
import { shellUnavailable } from "./shell-policy.ts";

export { SHELL_ENABLE_HINT, shellUnavailable } from "./shell-policy.ts";

export function createShellTool(config: ToolsConfig, workspace: string): Tool {
  return defineTool({
    unavailable: shellUnavailable(config),
    name: "shell",
    description: BUILTIN_TOOL_DESCRIPTIONS.shell,
    args: ShellArgs,
    async run(args, context) {
      return (await import("./shell-run.ts")).runShell(config, workspace, args, context);
    },
  });
}
