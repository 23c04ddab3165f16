/** Plain values of the Anthropic wire format, apart from its zod schemas (those load on first use, see wire.ts). */
export const ANTHROPIC_VERSION = "2023-06-01";

export const ANTHROPIC_STREAM_EVENT_TYPES = [
  "message_start",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "message_delta",
  "message_stop",
  "ping",
  "error",
] as const;
