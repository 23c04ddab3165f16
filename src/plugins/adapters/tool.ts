import { z } from "zod";
import { errorMessage, PrxError } from "../../core/errors.ts";
import { parseJsonBounded } from "../../core/json/index.ts";
import type { ToolSpec } from "../../providers/types.ts";
import type { ToolContext, ToolResult } from "../../tools/types.ts";
import { TOOL_NAME_PATTERN, TOOL_NAME_RULE } from "../../core/tool-names.ts";
import { invokeGuest } from "./call.ts";
import type { AdapterContext, CapabilityAdapter, ToolAdapter } from "./types.ts";

export { TOOL_NAME_PATTERN };
/** Max length of a tool's parameters-schema JSON text. */
export const TOOL_SCHEMA_MAX_CHARS = 64 * 1024;

/** WIT `get-spec` result in jco's JS mapping (record fields camelCased); the kebab name is accepted too. */
export const GuestToolSpecSchema = z.preprocess(
  (value) =>
    value && typeof value === "object" && !("parametersSchema" in value) && "parameters-schema" in value
      ? { ...value, parametersSchema: (value as Record<string, unknown>)["parameters-schema"] }
      : value,
  z.object({
    name: z.string().regex(TOOL_NAME_PATTERN, `tool name must be ${TOOL_NAME_RULE}`),
    description: z.string(),
    parametersSchema: z.string().max(TOOL_SCHEMA_MAX_CHARS),
  }),
);

/** WIT `execute` result: `{success, output, error: option<string>}`. */
export const GuestToolResultSchema = z.object({
  success: z.boolean(),
  output: z.string(),
  error: z.string().nullable().optional(),
});

function parseSpec(raw: unknown, where: string): ToolSpec {
  const spec = GuestToolSpecSchema.safeParse(raw);
  if (!spec.success) {
    const issue = spec.error.issues[0];
    throw new PrxError("PLUGIN_OUTPUT", `${where}: get-spec returned an invalid spec: ${issue?.path.join(".")} ${issue?.message}`);
  }
  let parameters: unknown;
  try {
    parameters = parseJsonBounded(spec.data.parametersSchema, "parameters-schema");
  } catch (cause) {
    throw new PrxError("PLUGIN_OUTPUT", `${where}: parameters-schema is not valid JSON: ${(cause as Error).message}`, {
      hint: "return a JSON Schema object as a string from get-spec",
    });
  }
  if (parameters === null || typeof parameters !== "object" || Array.isArray(parameters)) {
    throw new PrxError("PLUGIN_OUTPUT", `${where}: parameters-schema must be a JSON object (a JSON Schema)`);
  }
  return { name: spec.data.name, description: spec.data.description, parameters: parameters as Record<string, unknown> };
}

export async function createToolAdapter(context: AdapterContext): Promise<ToolAdapter> {
  const { plugin, capability, instance, status, track } = context;
  const ref = { type: "tool" as const, name: capability.name };
  const where = `plugin "${plugin.name}" tool "${capability.name}"`;
  const spec = parseSpec(await track(() => instance.invoke(ref, "get-spec", [])), where);

  return {
    type: "tool",
    plugin: plugin.name,
    capability,
    spec,
    call(args, toolContext) {
      return track(async (): Promise<ToolResult> => {
        if (toolContext.signal.aborted) throw new PrxError("ABORTED", `${where}: call aborted before it started`);
        const finish = status.begin("execute");
        let raw: unknown;
        try {
          raw = await invokeGuest(context, ref, "execute", [JSON.stringify(args)]);
        } catch (cause) {
          const message = `${where} failed: ${errorMessage(cause)}`;
          finish(message);
          return { success: false, output: "", error: message };
        }
        const result = GuestToolResultSchema.safeParse(raw);
        if (!result.success) {
          const message = `${where} returned an invalid result: ${result.error.issues[0]?.message}`;
          finish(message);
          return { success: false, output: "", error: message };
        }
        const error = result.data.error ?? null;
        finish(result.data.success ? undefined : (error ?? "tool reported failure"));
        return { success: result.data.success, output: result.data.output, error };
      });
    },
  };
}
