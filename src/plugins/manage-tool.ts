import { z } from "zod";
import { errorMessage } from "../core/errors.ts";
import { MANAGE_TOOL_NAME } from "../tools/builtins/names.ts";
import { defineTool } from "../tools/define.ts";
import { fail } from "../tools/result.ts";
import type { Tool, ToolSource } from "../tools/types.ts";
import type { PluginServices } from "./runtime/index.ts";
import { parseProbeRequest, ProbeActions, runProbe, STORAGE_OPS } from "./probes/index.ts";
import { Stages } from "../contracts/envelopes.ts";

export { MANAGE_TOOL_NAME };

/**
 * The model-facing arguments: one flat object (model APIs want `type: "object"` at the top), checked per action by
 * ProbeRequestSchema before anything runs.
 */
export const ManageToolArgsSchema = z.looseObject({
  action: z.enum(ProbeActions).describe("what to do"),
  plugin: z.string().optional().describe("restrict to one plugin (status, reload, and the probes)"),
  stage: z.enum(Stages).optional().describe("middleware_test: the stage"),
  data: z.record(z.string(), z.unknown()).optional().describe("middleware_test: the stage's envelope"),
  name: z.string().optional().describe("cron_run: job; provider_chat: wasm:<provider>; storage: wasm:<backend>"),
  messages: z
    .array(z.object({ role: z.enum(["system", "user", "assistant", "tool"]), content: z.string() }))
    .optional(),
  model: z.string().optional(),
  op: z.enum(STORAGE_OPS).optional().describe("storage: the operation"),
  key: z.string().optional(),
  content: z.string().optional(),
  category: z.string().optional(),
  query: z.string().optional(),
  limit: z.number().int().optional(),
});

function toolFor(services: PluginServices): Tool {
  return defineTool({
    name: MANAGE_TOOL_NAME,
    description:
      "Inspect and operate the workspace's WASM plugins: list, status, reload, and probes that run on the live plugin " +
      "generation: middleware_test {stage, data}, cron_run {name}, provider_chat {name, messages}, " +
      "storage {name, op: health|store|recall|forget|count, key, content, query}.",
    args: ManageToolArgsSchema,
    async run(args) {
      const raw = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
      try {
        const response = await runProbe(services, parseProbeRequest(raw));
        return { success: true, output: JSON.stringify(response), error: null };
      } catch (error) {
        return fail(`${MANAGE_TOOL_NAME} ${String(args.action)} failed: ${errorMessage(error)}`);
      }
    },
  });
}

/** A ToolSource with the one built-in plugin management tool, for the agent's tool registry. */
export function createManageToolSource(services: PluginServices): ToolSource {
  const tool = toolFor(services);
  const specs = [tool.spec];
  return {
    id: "plugins-manage",
    list: () => specs,
    get: (name) => (name === MANAGE_TOOL_NAME ? tool : undefined),
  };
}
