import { z } from "zod";

/** Chat messages as stored in sessions and sent to providers (OpenAI-shaped, the lingua franca). */
export const ToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Raw JSON text of the arguments, exactly as the model produced it. */
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const ChatMessageSchema = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string(),
  tool_calls: z.array(ToolCallSchema).optional(),
  /** For role "tool": the id of the call this answers. */
  tool_call_id: z.string().optional(),
  /** For role "tool": the tool's name. */
  name: z.string().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

export const ToolSpecSchema = z.object({
  name: z.string().min(1),
  description: z.string(),
  /** JSON Schema of the arguments object. */
  parameters: z.record(z.string(), z.unknown()),
  /** OpenAI structured outputs for this tool's arguments (a client's tool may ask for it; passed on as given). */
  strict: z.boolean().optional(),
});
export type ToolSpec = z.infer<typeof ToolSpecSchema>;

export const UsageSchema = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof UsageSchema>;
