import { z } from "zod";

/** The JSON Schema of what `schema` accepts (its input side), without `$schema`: what a model or a check reads. */
export function inputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return rest;
}
