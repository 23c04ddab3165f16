import type { z } from "zod";
import { inputJsonSchema } from "../core/input-json-schema.ts";

/** A tool's `parameters` as the model is shown them: the input JSON Schema of its argument schema. */
export function toolParameters(schema: z.ZodType): Record<string, unknown> {
  return inputJsonSchema(schema);
}
