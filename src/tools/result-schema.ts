import { z } from "zod";

/**
 * What a tool returns. The registry checks the common shape by hand (isPlainToolResult) and loads this module only
 * for a value that is not plainly one, so a turn whose tools answer plainly builds no zod schema.
 */
export const ToolResultSchema = z.object({
  success: z.boolean(),
  output: z.string(),
  error: z.string().nullable().optional(),
});
export type ToolResult = z.infer<typeof ToolResultSchema>;
