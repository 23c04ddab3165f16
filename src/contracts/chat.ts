import { z } from "zod";

/** Chat messages as stored in sessions and sent to providers (OpenAI-shaped, the lingua franca). */
export const ToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Raw JSON text of the arguments, exactly as the model produced it. */
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** Media types prx reads from the bytes (never from a header or a file name). */
export const MEDIA_MIME_TYPES = [
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "audio/ogg",
  "audio/mpeg",
  "audio/wav",
  "audio/mp4",
] as const;
export type MediaMime = (typeof MEDIA_MIME_TYPES)[number];

/**
 * An image or audio clip attached to a message. Stored bytes are named by `sha256` (the media store holds them);
 * an https image the provider fetches itself is named by `url`. `data` (base64) travels with a message on its way to
 * a provider and is never stored.
 */
export const MediaRefSchema = z.object({
  kind: z.enum(["image", "audio"]),
  mime: z.enum(MEDIA_MIME_TYPES).optional(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  url: z.string().optional(),
  bytes: z.number().int().nonnegative().optional(),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  seconds: z.number().nonnegative().optional(),
  /** OpenAI's image detail ("auto", "low", "high"), passed on to providers that take it. */
  detail: z.enum(["auto", "low", "high"]).optional(),
  data: z.string().optional(),
});
export type MediaRef = z.infer<typeof MediaRefSchema>;

export const ChatMessageSchema = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string(),
  /** Images (and the audio a transcript came from) of a user message, after its text. */
  media: z.array(MediaRefSchema).optional(),
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

/** Tokens of one or more model calls, in OpenAI's shape: `prompt_tokens` includes the cached ones. */
export const UsageSchema = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
  prompt_tokens_details: z.object({ cached_tokens: z.number().int().nonnegative().optional() }).optional(),
});
export type Usage = z.infer<typeof UsageSchema>;
