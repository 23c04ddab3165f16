import { z } from "zod";

/** A tool's `parameters` as the model is shown them: the input JSON Schema of its argument schema, without `$schema`. */
export function toolParameters(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return parameters;
}
