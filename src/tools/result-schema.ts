import { z } from "zod";

/** What a tool returns. */
export const ToolResultSchema = z.object({
  success: z.boolean(),
  output: z.string(),
  error: z.string().nullable().optional(),
});
export type ToolResult = z.infer<typeof ToolResultSchema>;
