import type { ToolsConfig } from "../../config/schema.ts";
import { defineTool } from "../define.ts";
import type { Tool } from "../types.ts";
import { BUILTIN_TOOL_DESCRIPTIONS, FileEditArgs, FileReadArgs, FileWriteArgs } from "./schemas.ts";

/** The tools' I/O, loaded by the first call. */
const io = () => import("./files-io.ts");

/** file_read, file_write and file_edit, confined to the workspace root (file_read also reads in `readableDirs`). */
export function createFileTools(config: ToolsConfig, workspace: string, readableDirs?: () => readonly string[]): Tool[] {
  return [
    defineTool({
      name: "file_read",
      description: BUILTIN_TOOL_DESCRIPTIONS.file_read,
      args: FileReadArgs,
      async run(args) {
        return (await io()).readWorkspaceFile(config, workspace, args, readableDirs?.() ?? []);
      },
    }),
    defineTool({
      name: "file_write",
      description: BUILTIN_TOOL_DESCRIPTIONS.file_write,
      args: FileWriteArgs,
      async run(args) {
        return (await io()).writeWorkspaceFile(config, workspace, args);
      },
    }),
    defineTool({
      name: "file_edit",
      description: BUILTIN_TOOL_DESCRIPTIONS.file_edit,
      args: FileEditArgs,
      async run(args) {
        return (await io()).editWorkspaceFile(config, workspace, args);
      },
    }),
  ];
}
