import type { z } from "zod";
import { fail } from "./result.ts";
import type { Tool, ToolContext, ToolResult } from "./types.ts";

/** Human-readable summary of zod issues: `path: message; path: message`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(arguments)"}: ${issue.message}`)
    .join("; ");
}

/** An argument schema: given, or loaded by the first call (its module, and zod, load only when a call needs them). */
type ArgsSchema<S extends z.ZodType<Record<string, unknown>>> = S | (() => Promise<S>);

export interface ToolDefinition<S extends z.ZodType<Record<string, unknown>>> {
  name: string;
  description: string;
  /**
   * The one schema of the arguments: validates calls, and its JSON Schema (`parameters`) is what the model is
   * shown. A loader defers building it (and importing zod) to the first call.
   */
  args: ArgsSchema<S>;
  /** The JSON Schema of `args` (inputJsonSchema(args), core/input-json-schema.ts); built-in tools take it from their generated json-schemas.ts. */
  parameters: Record<string, unknown>;
  run(args: z.output<S>, context: ToolContext): Promise<ToolResult>;
  /** See Tool.unavailable. */
  unavailable?: string;
}

/** Build a Tool whose arguments are parsed by its zod schema before `run` sees them. */
export function defineTool<S extends z.ZodType<Record<string, unknown>>>(definition: ToolDefinition<S>): Tool {
  const { args } = definition;
  let schema: S | Promise<S> | undefined = typeof args === "function" ? undefined : args;
  return {
    spec: { name: definition.name, description: definition.description, parameters: definition.parameters },
    ...(definition.unavailable === undefined ? {} : { unavailable: definition.unavailable }),
    async execute(raw, context) {
      const loaded = await (schema ??= (args as () => Promise<S>)());
      const parsed = loaded.safeParse(raw);
      if (!parsed.success) {
        return fail(`invalid arguments for ${definition.name}: ${describeIssues(parsed.error)}`);
      }
      return definition.run(parsed.data, context);
    },
  };
}
