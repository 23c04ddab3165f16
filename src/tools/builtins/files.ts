import type { ToolsConfig } from "../../config/schema.ts";
import { defineTool } from "../define.ts";
import type { Tool } from "../types.ts";
import { BUILTIN_TOOL_PARAMETERS } from "./json-schemas.ts";

/** The argument schemas and the tools' I/O, loaded by the first call. */
const schemas = () => import("./schemas.ts");
const io = () => import("./files-io.ts");

/** file_read and file_write, confined to the workspace root. */
export function createFileTools(config: ToolsConfig, workspace: string): Tool[] {
  return [
    defineTool({
      name: "file_read",
      description: "Read a UTF-8 text file inside the workspace.",
      args: async () => (await schemas()).FileReadArgs,
      parameters: BUILTIN_TOOL_PARAMETERS.file_read,
      async run(args) {
        return (await io()).readWorkspaceFile(config, workspace, args);
      },
    }),
    defineTool({
      name: "file_write",
      description: "Write (or append to) a text file inside the workspace.",
      args: async () => (await schemas()).FileWriteArgs,
      parameters: BUILTIN_TOOL_PARAMETERS.file_write,
      async run(args) {
        return (await io()).writeWorkspaceFile(config, workspace, args);
      },
    }),
  ];
}
