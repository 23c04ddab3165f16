import type { z } from "zod";
import { inputJsonSchema } from "../core/input-json-schema.ts";
import { fail } from "./result.ts";
import type { Tool, ToolContext, ToolResult } from "./types.ts";

/** Human-readable summary of zod issues: `path: message; path: message`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(arguments)"}: ${issue.message}`)
    .join("; ");
}

export interface ToolDefinition<S extends z.ZodType<Record<string, unknown>>> {
  name: string;
  description: string;
  /** The one schema of the arguments: validates calls, and its JSON Schema (the spec's `parameters`) is what the model is shown. */
  args: S;
  run(args: z.output<S>, context: ToolContext): Promise<ToolResult>;
  /** See Tool.unavailable. */
  unavailable?: string;
}

/** Build a Tool whose arguments are parsed by its zod schema before `run` sees them. */
export function defineTool<S extends z.ZodType<Record<string, unknown>>>(definition: ToolDefinition<S>): Tool {
  const { args } = definition;
  let parameters: Record<string, unknown> | undefined;
  return {
    spec: {
      name: definition.name,
      description: definition.description,
      // derived on first read: tools loaded for a call (builtins/catalog.ts) never need it
      get parameters() {
        return (parameters ??= inputJsonSchema(args));
      },
    },
    ...(definition.unavailable === undefined ? {} : { unavailable: definition.unavailable }),
    async execute(raw, context) {
      const parsed = args.safeParse(raw);
      if (!parsed.success) {
        return fail(`invalid arguments for ${definition.name}: ${describeIssues(parsed.error)}`);
      }
      return definition.run(parsed.data, context);
    },
  };
}
