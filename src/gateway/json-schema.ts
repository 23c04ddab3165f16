import { z } from "zod";

/** A zod schema as the OpenAPI 3.0 JSON Schema of the API reference. */
export function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { target: "openapi-3.0", io: "output", unrepresentable: "any" }) as Record<string, unknown>;
}
